<?php

use App\Http\Controllers\UserController;
use Nyholm\Psr7\ServerRequest;

const USERS_URI = '/users';

beforeEach(function () {
    $this->controller = new UserController(new InMemoryUserRepository());
});

describe('index', function () {
    it('lists no users at first', function () {
        $response = $this->controller->index(new ServerRequest('GET', USERS_URI));

        expect($response->getStatusCode())->toBe(200)
            ->and((string) $response->getBody())->toBe('[]');
    });
});

describe('show', function () {
    it('answers 404 for an unknown id', function () {
        $response = $this->controller->show(new ServerRequest('GET', USERS_URI . '/7'), 7);

        expect($response->getStatusCode())->toBe(404);
    });
});

test('store refuses a user without an email', function () {
    $request = (new ServerRequest('POST', USERS_URI))->withParsedBody(['name' => 'Ada']);

    expect($this->controller->store($request)->getStatusCode())->toBe(422);
});

<?php

declare(strict_types=1);

namespace App\Http\Controllers;

use App\Http\ResponseFactory;
use App\Models\User;
use App\Repositories\UserRepository;
use App\Support\AuditLog;
use App\Support\Paginator;
use InvalidArgumentException;
use JsonException;
use Psr\Http\Message\ResponseInterface;
use Psr\Http\Message\ServerRequestInterface;

/**
 * REST endpoints for users: list, show, create, update and delete.
 *
 * Every action answers JSON. Validation errors answer 422 with one message
 * per field; unknown users answer 404.
 */
final class UserController
{
    private const MAX_PAGE_SIZE = 100;

    /** @var array<string, string> field => rule */
    private const RULES = [
        'name' => 'required|string|max:120',
        'email' => 'required|email|max:254',
        'role' => 'in:viewer,editor,admin',
    ];

    public function __construct(
        private readonly UserRepository $users,
        private readonly ResponseFactory $responses,
        private readonly ?AuditLog $audit = null,
    ) {
    }

    public function index(ServerRequestInterface $request): ResponseInterface
    {
        $query = $request->getQueryParams();
        $page = max(1, (int) ($query['page'] ?? 1));
        $size = min(self::MAX_PAGE_SIZE, max(1, (int) ($query['per_page'] ?? 20)));
        $search = trim((string) ($query['q'] ?? ''));

        $paginator = new Paginator($this->users->count($search), $size);
        $users = $this->users->search($search, $paginator->offset($page), $size);

        return $this->responses->json([
            'data' => array_map(fn (User $u): array => $u->toArray(), $users),
            'meta' => [
                'page' => $page,
                'per_page' => $size,
                'total' => $paginator->total(),
                'pages' => $paginator->pages(),
            ],
        ]);
    }

    public function show(ServerRequestInterface $request, int $id): ResponseInterface
    {
        $user = $this->users->find($id);
        if ($user === null) {
            return $this->notFound($id);
        }
        return $this->responses->json(['data' => $user->toArray()]);
    }

    public function store(ServerRequestInterface $request): ResponseInterface
    {
        try {
            $input = $this->decode($request);
        } catch (JsonException $e) {
            return $this->responses->json(['error' => 'invalid JSON: ' . $e->getMessage()], 400);
        }

        $errors = $this->validate($input, self::RULES);
        if ($this->users->findByEmail((string) ($input['email'] ?? '')) !== null) {
            $errors['email'][] = 'is already taken';
        }
        if ($errors !== []) {
            return $this->responses->json(['errors' => $errors], 422);
        }

        $user = $this->users->create([
            'name' => $input['name'],
            'email' => strtolower($input['email']),
            'role' => $input['role'] ?? 'viewer',
        ]);
        $this->audit?->record('user.created', ['id' => $user->id]);

        return $this->responses->json(['data' => $user->toArray()], 201, [
            'Location' => '/users/' . $user->id,
        ]);
    }

    public function destroy(ServerRequestInterface $request, int $id): ResponseInterface
    {
        $user = $this->users->find($id);
        if ($user === null) {
            return $this->notFound($id);
        }
        $this->users->delete($user);
        $this->audit?->record('user.deleted', ['id' => $id]);
        return $this->responses->empty(204);
    }

    /**
     * Checks $input against pipe-separated rules and returns the messages
     * per field. Supported rules: required, string, email, max:N, in:a,b.
     *
     * @param array<string, mixed>  $input
     * @param array<string, string> $rules
     * @return array<string, list<string>>
     */
    private function validate(array $input, array $rules): array
    {
        $errors = [];
        foreach ($rules as $field => $spec) {
            $value = $input[$field] ?? null;
            foreach (explode('|', $spec) as $rule) {
                [$name, $arg] = array_pad(explode(':', $rule, 2), 2, null);
                $message = match ($name) {
                    'required' => $value === null || $value === '' ? 'is required' : null,
                    'string' => $value !== null && !is_string($value) ? 'must be a string' : null,
                    'email' => $value !== null && filter_var($value, FILTER_VALIDATE_EMAIL) === false
                        ? 'must be an e-mail address' : null,
                    'max' => is_string($value) && mb_strlen($value) > (int) $arg
                        ? "must be at most {$arg} characters" : null,
                    'in' => $value !== null && !in_array($value, explode(',', (string) $arg), true)
                        ? 'must be one of ' . str_replace(',', ', ', (string) $arg) : null,
                    default => throw new InvalidArgumentException("unknown rule {$name}"),
                };
                if ($message !== null) {
                    $errors[$field][] = $message;
                }
            }
        }
        return $errors;
    }

    /** @return array<string, mixed> */
    private function decode(ServerRequestInterface $request): array
    {
        $body = (string) $request->getBody();
        $data = json_decode($body === '' ? '{}' : $body, true, 16, JSON_THROW_ON_ERROR);
        return is_array($data) ? $data : [];
    }

    private function notFound(int $id): ResponseInterface
    {
        return $this->responses->json(['error' => "user {$id} not found"], 404);
    }
}

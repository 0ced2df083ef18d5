import 'package:test/test.dart';

import 'cart.dart';

const apple = Product('A1', 'Apple', 40);

void main() {
  group('Cart', () {
    test('sums its line items', () {
      final cart = Cart(Currency.eur)..add(apple, 3);
      expect(cart.total, 120);
    });

    test('applies a bulk rule from its threshold on', () {
      final cart = Cart(Currency.eur)..add(apple, 10);
      cart.rules.add(BulkRule('A1', 10, 30));
      expect(cart.total, 300);
    });

    test('refuses a quantity of zero', () {
      expect(() => Cart(Currency.eur).add(apple, 0), throwsArgumentError);
    });
  });

  group('CentsFormat', () {
    test('pads the cents', () {
      expect(1205.format(Currency.eur), '€12.05');
    });
  });
}

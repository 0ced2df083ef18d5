import 'dart:collection';
import 'dart:math' as math;

/// A product's price in cents, so sums never round.
typedef Cents = int;

enum Currency { eur, usd, gbp }

class Product {
  final String sku;
  final String name;
  final Cents price;

  const Product(this.sku, this.name, this.price);

  @override
  String toString() => '$name ($sku)';
}

class LineItem {
  final Product product;
  int quantity;

  LineItem(this.product, {this.quantity = 1}) {
    if (quantity <= 0) {
      throw ArgumentError.value(quantity, 'quantity', 'must be positive');
    }
  }

  Cents get total => product.price * quantity;
}

mixin Discountable {
  double discountRate = 0;

  Cents applyDiscount(Cents amount) {
    final off = (amount * discountRate).round();
    return math.max(0, amount - off);
  }
}

abstract class PriceRule {
  Cents adjust(Cart cart, Cents subtotal);
}

class BulkRule implements PriceRule {
  final String sku;
  final int threshold;
  final Cents unitPrice;

  BulkRule(this.sku, this.threshold, this.unitPrice);

  @override
  Cents adjust(Cart cart, Cents subtotal) {
    final item = cart.items[sku];
    if (item == null || item.quantity < threshold) {
      return subtotal;
    }
    final saved = (item.product.price - unitPrice) * item.quantity;
    return subtotal - saved;
  }
}

class Cart with Discountable {
  final Currency currency;
  final LinkedHashMap<String, LineItem> items = LinkedHashMap();
  final List<PriceRule> rules = [];

  Cart(this.currency);

  void add(Product product, [int quantity = 1]) {
    final existing = items[product.sku];
    if (existing != null) {
      existing.quantity += quantity;
    } else {
      items[product.sku] = LineItem(product, quantity: quantity);
    }
  }

  bool remove(String sku) => items.remove(sku) != null;

  Cents get subtotal =>
      items.values.fold(0, (sum, item) => sum + item.total);

  Cents get total {
    var amount = subtotal;
    for (final rule in rules) {
      amount = rule.adjust(this, amount);
    }
    return applyDiscount(amount);
  }
}

extension CentsFormat on int {
  String format(Currency currency) {
    final symbol = switch (currency) {
      Currency.eur => '€',
      Currency.usd => r'$',
      Currency.gbp => '£',
    };
    final whole = this ~/ 100;
    final cents = (this % 100).toString().padLeft(2, '0');
    return '$symbol$whole.$cents';
  }
}

/// The discount the demo applies to every cart.
const demoDiscount = 0.1;

void main() {
  final cart = Cart(Currency.eur)
    ..add(const Product('A1', 'Apple', 40), 12)
    ..add(const Product('B2', 'Bread', 250));
  cart.rules.add(BulkRule('A1', 10, 30));
  cart.discountRate = demoDiscount;
  print(cart.total.format(cart.currency));
}

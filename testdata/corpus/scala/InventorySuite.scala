package org.acme.inventory

import munit.FunSuite

class InventorySuite extends FunSuite {
  private val widget = Sku("WID-0001")

  test("Sku.parse accepts the catalogue's format") {
    assertEquals(Sku.parse("WID-0001"), Right(widget))
    assert(Sku.parse("widget").isLeft)
  }

  test("receiving stock makes it available") {
    val inv = Inventory.empty.applyEvent(Event.Received(widget, 5, BigDecimal(2)))
    assertEquals(inv.map(_(widget).available), Right(5))
  }

  test("shipping more than is available is refused") {
    val shipped = Inventory.empty.applyEvent(Event.Shipped(widget, 1, "o-1"))
    assert(shipped.isLeft)
  }
}

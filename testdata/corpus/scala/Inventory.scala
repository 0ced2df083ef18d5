package org.acme.inventory

import scala.collection.immutable.SortedMap
import scala.util.{Failure, Success, Try}

/** A stock keeping unit: the identity of a product variant. */
final case class Sku(value: String) extends AnyVal {
  override def toString: String = value
}

object Sku {
  private val Pattern = "^[A-Z]{3}-[0-9]{4,6}$".r

  def parse(s: String): Either[String, Sku] =
    if (Pattern.matches(s)) Right(Sku(s)) else Left(s"invalid SKU '$s'")
}

/** Things that happen to stock; the inventory is a fold over them. */
sealed trait Event {
  def sku: Sku
}

object Event {
  final case class Received(sku: Sku, quantity: Int, unitCost: BigDecimal) extends Event
  final case class Shipped(sku: Sku, quantity: Int, orderId: String) extends Event
  final case class Adjusted(sku: Sku, delta: Int, reason: String) extends Event
  final case class Reserved(sku: Sku, quantity: Int, orderId: String) extends Event
  final case class Released(sku: Sku, orderId: String) extends Event
}

/** Why an event was refused. */
sealed abstract class StockError(val message: String) extends Product with Serializable

object StockError {
  final case class Insufficient(sku: Sku, wanted: Int, available: Int)
      extends StockError(s"$sku: wanted $wanted, only $available available")
  final case class UnknownReservation(sku: Sku, orderId: String)
      extends StockError(s"$sku: no reservation for order $orderId")
  final case class NonPositive(sku: Sku, quantity: Int)
      extends StockError(s"$sku: quantity must be positive, got $quantity")
}

/** The stock of one SKU: on hand, reserved per order, and average cost. */
final case class Stock(
    onHand: Int = 0,
    reservations: Map[String, Int] = Map.empty,
    averageCost: BigDecimal = BigDecimal(0)
) {
  def reserved: Int = reservations.values.sum
  def available: Int = onHand - reserved
}

/** An immutable inventory; every change returns a new one or an error. */
final class Inventory private (val stock: SortedMap[Sku, Stock]) {
  import Event._
  import StockError._

  def apply(sku: Sku): Stock = stock.getOrElse(sku, Stock())

  /**
   * Applies one event. Receiving updates the moving average cost;
   * shipping takes from an order's reservation first, then from what is
   * available; an adjustment may take stock below zero only to zero.
   */
  def applyEvent(event: Event): Either[StockError, Inventory] = {
    val current = this(event.sku)
    def positive(q: Int)(f: => Either[StockError, Stock]) =
      if (q <= 0) Left(NonPositive(event.sku, q)) else f

    val next: Either[StockError, Stock] = event match {
      case Received(sku, q, cost) =>
        positive(q) {
          val total = current.averageCost * current.onHand + cost * q
          val onHand = current.onHand + q
          Right(current.copy(onHand = onHand, averageCost = (total / onHand).setScale(4, BigDecimal.RoundingMode.HALF_EVEN)))
        }
      case Shipped(sku, q, order) =>
        positive(q) {
          val fromReservation = math.min(q, current.reservations.getOrElse(order, 0))
          val rest = q - fromReservation
          if (rest > current.available) Left(Insufficient(sku, q, current.available + fromReservation))
          else {
            val left = current.reservations.getOrElse(order, 0) - fromReservation
            val reservations =
              if (left > 0) current.reservations.updated(order, left) else current.reservations - order
            Right(current.copy(onHand = current.onHand - q, reservations = reservations))
          }
        }
      case Adjusted(_, delta, _) =>
        Right(current.copy(onHand = math.max(0, current.onHand + delta)))
      case Reserved(sku, q, order) =>
        positive(q) {
          if (q > current.available) Left(Insufficient(sku, q, current.available))
          else Right(current.copy(reservations = current.reservations.updatedWith(order) {
            case Some(n) => Some(n + q)
            case None    => Some(q)
          }))
        }
      case Released(sku, order) =>
        if (current.reservations.contains(order)) Right(current.copy(reservations = current.reservations - order))
        else Left(UnknownReservation(sku, order))
    }
    next.map(s => new Inventory(stock.updated(event.sku, s)))
  }

  /** Applies events in order, stopping at the first refusal. */
  def applyAll(events: Iterable[Event]): Either[(Event, StockError), Inventory] =
    events.foldLeft[Either[(Event, StockError), Inventory]](Right(this)) {
      case (Right(inv), e) => inv.applyEvent(e).left.map(err => (e, err))
      case (left, _)       => left
    }

  /** The total value of what is on hand, at average cost. */
  def value: BigDecimal = stock.values.map(s => s.averageCost * s.onHand).sum

  override def toString: String =
    stock.map { case (sku, s) => s"$sku: ${s.onHand} on hand, ${s.reserved} reserved" }.mkString("\n")
}

object Inventory {
  val empty: Inventory = new Inventory(SortedMap.empty(Ordering.by[Sku, String](_.value)))

  /** Reads "sku,quantity,cost" lines into Received events. */
  def receiptsFromCsv(lines: Iterator[String]): Try[List[Event]] = Try {
    lines.zipWithIndex.filterNot(_._1.isBlank).map { case (line, i) =>
      line.split(',').map(_.trim) match {
        case Array(s, q, c) =>
          Sku.parse(s) match {
            case Right(sku) => Event.Received(sku, q.toInt, BigDecimal(c))
            case Left(err)  => throw new IllegalArgumentException(s"line ${i + 1}: $err")
          }
        case other =>
          throw new IllegalArgumentException(s"line ${i + 1}: want 3 fields, got ${other.length}")
      }
    }.toList
  }

  def main(args: Array[String]): Unit = {
    val csv = Iterator("ABC-1001, 10, 2.50", "ABC-1002, 4, 7.00", "", "ABC-1001, 10, 3.50")
    receiptsFromCsv(csv) match {
      case Success(events) =>
        empty.applyAll(events) match {
          case Right(inv)         => println(inv); println(s"value: ${inv.value}")
          case Left((event, err)) => Console.err.println(s"refused $event: ${err.message}")
        }
      case Failure(e) => Console.err.println(e.getMessage)
    }
  }
}

# frozen_string_literal: true

require "bigdecimal"
require "bigdecimal/util"
require "date"

# Billing: invoices with line items, taxes and discounts, rendered as text.
module Billing
  # Raised when an invoice is built from inconsistent data.
  class InvoiceError < StandardError; end

  # Money is kept as BigDecimal with a currency, never as Float.
  Money = Struct.new(:amount, :currency) do
    include Comparable

    def self.zero(currency)
      new(BigDecimal("0"), currency)
    end

    def +(other)
      check_currency!(other)
      Money.new(amount + other.amount, currency)
    end

    def -(other)
      check_currency!(other)
      Money.new(amount - other.amount, currency)
    end

    def *(factor)
      Money.new((amount * factor.to_d).round(2, :banker), currency)
    end

    def <=>(other)
      check_currency!(other)
      amount <=> other.amount
    end

    def to_s
      format("%<amount>.2f %<currency>s", amount: amount, currency: currency)
    end

    private

    def check_currency!(other)
      return if other.currency == currency

      raise InvoiceError, "cannot mix #{currency} and #{other.currency}"
    end
  end

  # One line of an invoice.
  class LineItem
    attr_reader :description, :quantity, :unit_price, :tax_rate

    def initialize(description:, quantity:, unit_price:, tax_rate: 0)
      raise InvoiceError, "quantity must be positive" unless quantity.positive?
      raise InvoiceError, "tax rate out of range: #{tax_rate}" unless (0..1).cover?(tax_rate)

      @description = description
      @quantity = quantity
      @unit_price = unit_price
      @tax_rate = tax_rate.to_d
    end

    def net
      unit_price * quantity
    end

    def tax
      net * tax_rate
    end

    def gross
      net + tax
    end
  end

  # An invoice: a customer, a date, line items and optional discounts.
  class Invoice
    include Enumerable

    PAYMENT_TERMS_DAYS = 30

    attr_reader :number, :customer, :issued_on, :currency

    def initialize(number:, customer:, currency: "EUR", issued_on: Date.today)
      @number = number
      @customer = customer
      @currency = currency
      @issued_on = issued_on
      @items = []
      @discounts = []
    end

    def add(description, quantity:, unit_price:, tax_rate: 0)
      price = unit_price.is_a?(Money) ? unit_price : Money.new(unit_price.to_d, currency)
      @items << LineItem.new(description: description, quantity: quantity,
                             unit_price: price, tax_rate: tax_rate)
      self
    end

    # A discount is a percentage (0.1 for 10%) taken off the net total
    # before tax, or a fixed Money amount taken off at the end.
    def discount(value, reason:)
      @discounts << { value: value, reason: reason }
      self
    end

    def each(&block)
      @items.each(&block)
    end

    def due_on
      issued_on + PAYMENT_TERMS_DAYS
    end

    def net_total
      @items.map(&:net).reduce(Money.zero(currency), :+)
    end

    def tax_total
      factor = percentage_factor
      @items.map { |item| item.tax * factor }.reduce(Money.zero(currency), :+)
    end

    def total
      fixed = @discounts.map { |d| d[:value] }.grep(Money).reduce(Money.zero(currency), :+)
      result = net_total * percentage_factor + tax_total - fixed
      raise InvoiceError, "discounts exceed the total of invoice #{number}" if result.amount.negative?

      result
    end

    # Renders the invoice as plain text, one line per item, with the totals
    # right-aligned under the amounts and the discounts listed by reason.
    def render(width: 72)
      raise InvoiceError, "invoice #{number} has no items" if @items.empty?

      lines = []
      lines << "INVOICE #{number}".center(width)
      lines << ""
      lines << "Customer: #{customer}"
      lines << "Issued:   #{issued_on.iso8601}    Due: #{due_on.iso8601}"
      lines << "-" * width
      amount_width = 16
      text_width = width - amount_width - 8
      each do |item|
        text = item.description.to_s
        text = "#{text[0, text_width - 1]}…" if text.length > text_width
        qty = item.quantity.to_s.rjust(4)
        lines << "#{text.ljust(text_width)} #{qty}  #{item.gross.to_s.rjust(amount_width)}"
      end
      lines << "-" * width
      @discounts.each do |d|
        label = d[:value].is_a?(Money) ? d[:value].to_s : "#{(d[:value] * 100).to_i}%"
        lines << "Discount (#{d[:reason]}): #{label}"
      end
      [["Net", net_total], ["Tax", tax_total], ["Total", total]].each do |label, money|
        lines << "#{label.rjust(width - amount_width - 2)}  #{money.to_s.rjust(amount_width)}"
      end
      lines.join("\n") << "\n"
    end

    private

    def percentage_factor
      off = @discounts.map { |d| d[:value] }.grep(Numeric).sum
      raise InvoiceError, "percentage discounts add up to more than 100%" if off > 1

      1 - off.to_d
    end
  end

  class << self
    # Builds an invoice from a hash, as read from YAML or JSON.
    def from_hash(data)
      invoice = Invoice.new(
        number: data.fetch("number"),
        customer: data.fetch("customer"),
        currency: data.fetch("currency", "EUR"),
        issued_on: Date.parse(data.fetch("issued_on", Date.today.iso8601)),
      )
      data.fetch("items", []).each do |item|
        invoice.add(item.fetch("description"),
                    quantity: item.fetch("quantity", 1),
                    unit_price: item.fetch("unit_price"),
                    tax_rate: item.fetch("tax_rate", 0))
      end
      invoice
    rescue KeyError => e
      raise InvoiceError, "invoice data is missing #{e.key.inspect}"
    end
  end
end

package org.acme.inventory;

import java.io.Serializable;
import java.util.Comparator;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * A stock keeping unit: a category prefix, a product number and an optional
 * variant, written {@code CAT-000123} or {@code CAT-000123/XL}.
 *
 * <p>Instances are immutable and interned per code, so they may be compared
 * with {@code ==} in hot loops (but {@link #equals(Object)} works too).
 */
public final class Sku implements Comparable<Sku>, Serializable {

    private static final long serialVersionUID = 7_203_114L;

    private static final Pattern FORMAT =
            Pattern.compile("(?<category>[A-Z]{2,4})-(?<number>\\d{6})(?:/(?<variant>[A-Z0-9]{1,3}))?");

    private static final Map<String, Sku> INTERNED = new java.util.concurrent.ConcurrentHashMap<>();

    /** Natural order: by category, then product number, then variant. */
    public static final Comparator<Sku> ORDER = Comparator
            .comparing(Sku::category)
            .thenComparingInt(Sku::number)
            .thenComparing(Sku::variant, Comparator.nullsFirst(Comparator.naturalOrder()));

    /** Product categories with their own handling rules. */
    public enum Category {
        /** Food: has a best-before date and is never transferred. */
        FOOD("FD", true, false),
        /** Apparel: always has a size variant. */
        APPAREL("AP", false, true),
        HARDWARE("HW", false, false),
        ELECTRONICS("EL", false, false),
        OTHER("", false, false);

        private final String prefix;
        private final boolean perishable;
        private final boolean variantRequired;

        Category(String prefix, boolean perishable, boolean variantRequired) {
            this.prefix = prefix;
            this.perishable = perishable;
            this.variantRequired = variantRequired;
        }

        public boolean isPerishable() {
            return perishable;
        }

        public boolean isVariantRequired() {
            return variantRequired;
        }

        static Category ofPrefix(String prefix) {
            for (Category c : values()) {
                if (c.prefix.equals(prefix)) {
                    return c;
                }
            }
            return OTHER;
        }
    }

    private final String category;
    private final int number;
    private final String variant;

    private Sku(String category, int number, String variant) {
        this.category = category;
        this.number = number;
        this.variant = variant;
    }

    /**
     * Parses a SKU code.
     *
     * @param code the code, case-insensitive
     * @return the interned SKU
     * @throws IllegalArgumentException if the code is malformed
     */
    public static Sku parse(String code) {
        String normalized = code.trim().toUpperCase(Locale.ROOT);
        return INTERNED.computeIfAbsent(normalized, c -> {
            var m = FORMAT.matcher(c);
            if (!m.matches()) {
                throw new IllegalArgumentException("not a SKU: \"" + code + "\"");
            }
            Sku sku = new Sku(m.group("category"), Integer.parseInt(m.group("number")), m.group("variant"));
            if (sku.kind().isVariantRequired() && sku.variant == null) {
                throw new IllegalArgumentException(code + ": " + sku.kind() + " needs a variant");
            }
            return sku;
        });
    }

    public String category() {
        return category;
    }

    public int number() {
        return number;
    }

    public String variant() {
        return variant;
    }

    public Category kind() {
        return Category.ofPrefix(category);
    }

    /** The same product without its variant. */
    public Sku base() {
        return variant == null ? this : parse(String.format("%s-%06d", category, number));
    }

    @Override
    public int compareTo(Sku other) {
        return ORDER.compare(this, other);
    }

    @Override
    public boolean equals(Object o) {
        if (this == o) {
            return true;
        }
        if (!(o instanceof Sku s)) {
            return false;
        }
        return number == s.number && category.equals(s.category) && java.util.Objects.equals(variant, s.variant);
    }

    @Override
    public int hashCode() {
        return java.util.Objects.hash(category, number, variant);
    }

    @Override
    public String toString() {
        return variant == null
                ? String.format("%s-%06d", category, number)
                : String.format("%s-%06d/%s", category, number, variant);
    }

    // Serialization goes through the code so that deserialized instances
    // are interned like parsed ones.
    private Object writeReplace() {
        return new SerialForm(toString());
    }

    private record SerialForm(String code) implements Serializable {
        private Object readResolve() {
            return Sku.parse(code);
        }
    }
}

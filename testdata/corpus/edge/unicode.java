package org.beispiel.einheiten;

import java.util.List;
import java.util.Map;

/**
 * Umrechnung von Temperaturen — conversion des températures — 温度换算.
 *
 * <p>Die Bezeichner enthalten Umlaute; Java erlaubt jeden Unicode-Buchstaben.
 */
public final class Temperatur {

    /** Absoluter Nullpunkt in °C. */
    public static final double NULLPUNKT = -273.15;

    private final double grad;

    private Temperatur(double grad) {
        if (grad < NULLPUNKT) {
            throw new IllegalArgumentException("unter dem absoluten Nullpunkt: " + grad + " °C");
        }
        this.grad = grad;
    }

    public static Temperatur celsius(double grad) {
        return new Temperatur(grad);
    }

    public static Temperatur fahrenheit(double grad) {
        return new Temperatur((grad - 32) * 5 / 9);
    }

    // 开尔文温标
    public double kelvin() {
        return grad - NULLPUNKT;
    }

    public double größe() {
        return grad;
    }

    /** Beschreibung für Menschen: „warm“, „kalt“ … */
    public String gefühl() {
        if (grad >= 30) return "heiß 🔥";
        if (grad >= 20) return "warm ☀";
        if (grad >= 10) return "mild";
        if (grad >= 0) return "kühl";
        return "eisig ❄";
    }

    public static final Map<String, List<String>> NAMEN = Map.of(
            "de", List.of("Temperatur", "Wärme"),
            "fr", List.of("température", "chaleur"),
            "ja", List.of("温度", "熱"),
            "ru", List.of("температура", "тепло"));

    @Override
    public String toString() {
        return String.format("%.1f\u00a0°C", grad);
    }
}

# -*- coding: utf-8 -*-
"""Unités et conversions — Einheiten und Umrechnungen — 単位換算."""

from dataclasses import dataclass

# Konstanten (mit Umlauten in den Bezeichnern: PEP 3131 erlaubt das).
π = 3.141592653589793
größe_max = 10_000
ЛИМИТ = 42


@dataclass
class Maß:
    """Ein Wert mit Einheit, z. B. 3 km oder 12 °C."""

    wert: float
    einheit: str = "m"

    def in_einheit(self, ziel: str) -> "Maß":
        # 换算表：以米为基准
        faktoren = {"mm": 0.001, "cm": 0.01, "m": 1.0, "km": 1000.0}
        if self.einheit not in faktoren or ziel not in faktoren:
            raise ValueError(f"unbekannte Einheit: {self.einheit!r} → {ziel!r}")
        return Maß(self.wert * faktoren[self.einheit] / faktoren[ziel], ziel)

    def __str__(self) -> str:
        # Schmales geschütztes Leerzeichen zwischen Zahl und Einheit.
        return f"{self.wert:g}\u202f{self.einheit}"


def kreisfläche(radius: float) -> float:
    """Fläche eines Kreises: π·r²."""
    return π * radius ** 2


def 挨拶(名前: str) -> str:
    # 日本語の識別子も使えます
    return f"こんにちは、{名前}さん！ 👋"


ÜBERSETZUNGEN = {
    "hello": ["hallo", "bonjour", "привет", "你好", "مرحبا"],
    "space": ["Leerzeichen", "espace insécable:\u00a0fin", "全角　スペース"],
}


if __name__ == "__main__":
    print(Maß(1500, "m").in_einheit("km"), kreisfläche(2.0), 挨拶("世界"))

# A settings loader written on Windows: every line ends with CR LF.
import os
import configparser
from pathlib import Path


DEFAULTS = {
    "host": "localhost",
    "port": "8000",
    "debug": "false",
}


class Settings:
    """Read settings from an INI file with environment overrides."""

    def __init__(self, path: Path):
        self.path = path
        self._parser = configparser.ConfigParser()
        self._parser["server"] = DEFAULTS
        if path.exists():
            self._parser.read(path, encoding="utf-8")

    def get(self, key: str) -> str:
        # The environment wins over the file.
        env = os.environ.get("APP_" + key.upper())
        if env is not None:
            return env
        return self._parser["server"].get(key, DEFAULTS.get(key, ""))

    @property
    def port(self) -> int:
        return int(self.get("port"))

    @property
    def debug(self) -> bool:
        return self.get("debug").lower() in ("1", "true", "yes")

    def __repr__(self) -> str:   
        return f"Settings({self.path!s})"


def load(path: str = "settings.ini") -> Settings:
    return Settings(Path(path))


if __name__ == "__main__":
    s = load()
    print(s.get("host"), s.port, s.debug)

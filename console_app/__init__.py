"""NeuroCanvas desktop app (PySide6). It may import ``engine``; ``engine`` never imports it."""

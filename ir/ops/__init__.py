"""Op declarations, one module per family (`ir/families.py`); importing this package fills
`registry.OPS`."""
from ..families import load_families

FAMILIES = load_families(__name__, __path__)

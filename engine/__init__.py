"""The RepoBot engine: load -> chunk -> index -> retrieve -> prompt -> generate -> check.

Never imports Qt. Importing it switches Hugging Face libraries to offline mode,
so nothing in the process can reach a model hub.
"""

from . import config as _config

_config.force_offline()

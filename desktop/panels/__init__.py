"""The window's three panels: collections (left), chat (middle), viewer (right). Each only draws and forwards."""

"""`memdock ui`: a local web page to browse, search and curate a memory, through the service layer.

Server-rendered HTML (Starlette, from the `ui` or `mcp` extra, imported only when the command runs); every page
works without JavaScript. Modules: html (escaping and templates), data (what the pages show, from the service),
views and pictures (pages and their SVG), auth (token, CSRF, Host), app (routes), server (the command's server),
mount (the page under `memdock mcp --http` at /ui).
"""

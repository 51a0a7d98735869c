"""The history of the nightly runs: a store on a git branch, imports, change points, a trend page.

See docs/history.md. Modules: :mod:`.store` (the only reader/writer of the files), :mod:`.add`
(a trial log into entries), :mod:`.importers` (other tools' files), :mod:`.changes` (change
points with Apache Otava), :mod:`.report` (the HTML page), :mod:`.issue` (the one GitHub issue).
"""

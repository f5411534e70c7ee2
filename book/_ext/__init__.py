"""As extensões Sphinx do livro (o pacote `livro_ext`; o _config.yml carrega `livro_ext.livro`).

Os scripts rodam como módulos: `python -m livro_ext.razao gerar _build`,
`python -m livro_ext.rapido`, `python -m livro_ext.pos_build _build/html`.
"""

"""As extensões Sphinx do livro (o pacote `livro_ext`; o _config.yml carrega `livro_ext.livro`).

Cada pasta é uma família (o mapa está no começo do CONTRIBUINDO.md): trava, notebooks, pdf,
tema, execucao e widgets. Os scripts rodam como módulos: `python -m livro_ext.trava.razao gerar _build`,
`python -m livro_ext.trava.rapido`, `python -m livro_ext.widgets.pos_build _build/html`.
"""

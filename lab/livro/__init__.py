"""O Python do livro: o brinquedo, o formatador, as contas das páginas, os widgets, o laboratório.

    from livro import brinquedo as b        # o GPT de brinquedo (d = 4, V = 12, um bloco)
    from livro.formato import num, inteiro  # o único formatador de números
    from livro.paginas import cola          # colar um valor na página

Subpacotes: `livro.widgets` (os widgets, só a biblioteca padrão: rodam no Pyodide) e
`livro.gpt2` (o laboratório com o GPT-2 de verdade; precisa do torch e do transformers).
Importar o pacote não importa nada além disto.
"""

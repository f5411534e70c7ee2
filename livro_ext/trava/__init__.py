"""A trava de números: coletar, normalizar, comparar e aceitar cada número que o leitor vê.

razao_codigo (o código das células) → razao_texto (cada saída vira texto normalizado) → razao
(o build e o lock) → rapido (as páginas sem o Sphinx, o `make lock`); razao_pagina desenha a página
dos instrutores. Importa de execucao e widgets.
"""

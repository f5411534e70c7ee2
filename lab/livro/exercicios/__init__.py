"""Exercícios conferidos: cada passo pergunta de volta, e o brinquedo confere a resposta.

Um exercício é uma função `gera(s)` que devolve uma `Versao`: o enunciado, o gabarito, os
erros típicos (cada um calculado pelo brinquedo com aquele erro) e a resolução. `s` é None
na versão do livro e um `Sorteio` nas outras versões ("outra versão": outro prompt, outra
linha, outro T, k, p ou u; os pesos ficam). Todo número sai de `livro` e de `livro.formato`.

Só a biblioteca padrão: este subpacote roda também no Pyodide (o widget `exercicio:<id>`).
"""
from livro.exercicios.base import (EXERCICIOS, Degenerado, Erro, Sorteio, Versao,  # noqa: F401
                                   da_pagina, versao, PAGINAS)
from livro.exercicios import passos, atencao, saida, outros, treino, treino_volta  # noqa: F401,E402  (registram os exercícios)

"""O leitor de MyST das extensões do livro: cercas (```, ~~~, :::), diretivas e opções.

Usado pelo verificador de números digitados (`lint_numeros.py`) e pelo exportador de notebooks
(`notebooks.py`), para que os dois leiam uma página do mesmo jeito.

    for p in pedacos(linhas):
        if isinstance(p, Bloco): ...   # p.nome ("dropdown", "code-cell"... ou None), p.arg, p.corpo
        else: i, linha = p             # uma linha fora de qualquer cerca
"""
from __future__ import annotations

import re
from dataclasses import dataclass

ABRE = re.compile(r"^(?P<ind>\s{0,3})(?P<cerca>`{3,}|~{3,}|:{3,})\s*(?P<info>.*?)\s*$")
DIRETIVA = re.compile(r"^\{(?P<nome>[^}\s]+)\}\s*(?P<arg>.*)$")


@dataclass
class Bloco:
    """Um trecho cercado: da linha `inicio` (a que abre) à `fim` (a que fecha, ou o fim do texto)."""

    inicio: int
    fim: int
    cerca: str
    info: str
    corpo: list[str]          # as linhas de dentro, sem a indentação da cerca
    nome: str | None = None   # a diretiva ({nome}); None num bloco de código comum
    arg: str = ""             # o argumento da diretiva (o título de um aviso, por exemplo)


def fecha(cerca: str) -> re.Pattern:
    """A linha que fecha `cerca`: o mesmo caractere, pelo menos tantas vezes, e nada mais."""
    return re.compile(r"^\s{0,3}" + re.escape(cerca[0]) + "{" + str(len(cerca)) + r",}\s*$")


def pedacos(linhas: list[str], inicio: int = 0):
    """Percorre `linhas`: um `Bloco` para cada cerca (com o corpo inteiro, para o chamador ler
    ou percorrer de novo) e (índice, linha) para cada linha fora de cerca."""
    i = inicio
    while i < len(linhas):
        m = ABRE.match(linhas[i])
        if not m:
            yield i, linhas[i]
            i += 1
            continue
        cerca, info, ind = m.group("cerca"), m.group("info"), m.group("ind")
        fim, f = i + 1, fecha(cerca)
        while fim < len(linhas) and not f.match(linhas[fim]):
            fim += 1
        corpo = [x[len(ind):] if x.startswith(ind) else x for x in linhas[i + 1:fim]]
        md = DIRETIVA.match(info)
        yield Bloco(i, fim, cerca, info, corpo, md.group("nome") if md else None, md.group("arg") if md else "")
        i = fim + 1


def opcoes(corpo: list[str]) -> tuple[dict, list[str], int]:
    """Separa as opções de uma diretiva (:chave: valor, ou um bloco --- yaml ---) do conteúdo.

    -> (opções, linhas do conteúdo, quantas linhas do corpo eram opções)."""
    op, k = {}, 0
    if corpo and corpo[0].strip() == "---":
        k = 1
        while k < len(corpo) and corpo[k].strip() != "---":
            if ":" in corpo[k]:
                a, b = corpo[k].split(":", 1)
                op[a.strip()] = b.strip()
            k += 1
        k += 1
    else:
        while k < len(corpo):
            m = re.match(r"^\s*:([\w-]+):(?:\s+(.*))?$", corpo[k])
            if not m:
                break
            op[m.group(1)] = (m.group(2) or "").strip()
            k += 1
    return op, corpo[k:], k

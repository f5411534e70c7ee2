"""O leitor de MyST das extensões: cercas (```, ~~~, :::), diretivas e opções. O lint de números,
a chave do cache e os notebooks leem uma página do mesmo jeito por ele."""
from __future__ import annotations

import re
from dataclasses import dataclass

ABRE = re.compile(r"^(?P<ind>\s{0,3})(?P<cerca>`{3,}|~{3,}|:{3,})\s*(?P<info>.*?)\s*$")
DIRETIVA = re.compile(r"^\{(?P<nome>[^}\s]+)\}\s*(?P<arg>.*)$")
OPCAO = re.compile(r"^\s*:([\w-]+):(?:\s+(.*))?$")


@dataclass
class Bloco:
    """Um trecho cercado, que abre na linha `inicio`."""

    inicio: int
    info: str
    corpo: list[str]          # as linhas de dentro, sem a indentação da cerca
    nome: str | None = None   # a diretiva ({nome}); None num bloco de código comum
    arg: str = ""             # o argumento da diretiva (o título de um aviso, por exemplo)


def pedacos(linhas: list[str]):
    """Um `Bloco` para cada cerca (até a que fecha, ou o fim) e (índice, linha) para cada linha fora delas."""
    i = 0
    while i < len(linhas):
        m = ABRE.match(linhas[i])
        if not m:
            yield i, linhas[i]
            i += 1
            continue
        cerca = m.group("cerca")
        fecha = re.compile(r"^\s{0,3}" + re.escape(cerca[0]) + "{" + str(len(cerca)) + r",}\s*$")
        fim = i + 1
        while fim < len(linhas) and not fecha.match(linhas[fim]):
            fim += 1
        corpo = [x.removeprefix(m.group("ind")) for x in linhas[i + 1:fim]]
        d = DIRETIVA.match(m.group("info"))
        yield Bloco(i, m.group("info"), corpo, d.group("nome") if d else None, d.group("arg") if d else "")
        i = fim + 1


def opcoes(corpo: list[str]) -> tuple[dict, list[str], int]:
    """As opções de uma diretiva (:chave: valor, ou um bloco --- yaml ---)
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
        while k < len(corpo) and (m := OPCAO.match(corpo[k])):
            op[m.group(1)] = (m.group(2) or "").strip()
            k += 1
    return op, corpo[k:], k

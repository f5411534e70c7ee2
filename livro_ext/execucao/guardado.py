"""Resultados do build guardados pelo hash de tudo o que entra neles.

Alguns passos do build dão sempre a mesma saída para a mesma entrada e custam CPU: o gzip -9
do runtime do Pyodide, o pyodide-build (a roda, o lock e a biblioteca padrão compilados), o
MathJax no Node (as fórmulas de cada página), a varredura das páginas para a página de
números (razao_pagina.py) e o subconjunto das fontes de ícones (icones.py). Cada um guarda a saída
em `node_modules/.cache/livro-<tipo>/`, com o nome do sha256 da entrada: o mesmo código,
os mesmos bytes de saída (build reprodutível), então um resultado guardado nunca é velho.
A chave inclui o código que produz a saída (este arquivo e o do passo): mudou o código,
muda a chave.

O `make bench` apaga `_build`, não este cache: ele mede o build de quem escreve o livro.
`LIVRO_SEM_GUARDADO=1` ignora o cache (lê nada, guarda nada), para medir um build do zero;
o CI parte de um clone novo, sem cache.
"""
from __future__ import annotations

import contextlib
import hashlib
import os
from pathlib import Path

RAIZ = Path(__file__).resolve().parents[2]
PASTA = RAIZ / "node_modules" / ".cache"
MAXIMO = 64          # arquivos por tipo; os menos usados saem primeiro


def ligado() -> bool:
    return os.environ.get("LIVRO_SEM_GUARDADO", "") in ("", "0")


def chave(*partes) -> str:
    """O sha256 das partes (bytes ou texto), cada uma com o seu tamanho na frente: duas
    listas diferentes nunca dão a mesma chave."""
    h = hashlib.sha256()
    for p in partes:
        b = p if isinstance(p, bytes) else str(p).encode("utf-8")
        h.update(len(b).to_bytes(8, "little"))
        h.update(b)
    return h.hexdigest()


def ler(tipo: str, k: str) -> bytes | None:
    if not ligado():
        return None
    arq = PASTA / f"livro-{tipo}" / k
    try:
        dados = arq.read_bytes()
        os.utime(arq)            # usado agora: sai por último
        return dados
    except OSError:
        return None


def guardar(tipo: str, k: str, dados: bytes) -> None:
    """Escreve de uma vez (um arquivo temporário renomeado); sem onde escrever, segue sem guardar."""
    if not ligado():
        return
    pasta = PASTA / f"livro-{tipo}"
    with contextlib.suppress(OSError):
        pasta.mkdir(parents=True, exist_ok=True)
        temp = pasta / f".{k}.{os.getpid()}.tmp"
        temp.write_bytes(dados)
        temp.replace(pasta / k)
        arquivos = sorted((p for p in pasta.iterdir() if not p.name.startswith(".")),
                          key=lambda p: p.stat().st_mtime)
        for velho in arquivos[:-MAXIMO]:
            velho.unlink(missing_ok=True)

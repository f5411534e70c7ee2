"""Saídas do build guardadas em `node_modules/.cache/livro-<tipo>/` pelo sha256 de tudo o que entra nelas
(o código incluído); `LIVRO_SEM_GUARDADO=1` as ignora. Ver o CONTRIBUINDO.md e o dev/MEDIDAS.md."""
from __future__ import annotations

import contextlib
import hashlib
import os
from pathlib import Path

PASTA = Path(__file__).resolve().parents[2] / "node_modules" / ".cache"
MAXIMO = 64          # arquivos por tipo; os menos usados saem primeiro


def ligado() -> bool:
    return os.environ.get("LIVRO_SEM_GUARDADO", "") in ("", "0")


def chave(*partes) -> str:
    """O sha256 das partes (bytes ou texto), cada uma com o seu tamanho na frente (nunca duas listas, uma chave)."""
    h = hashlib.sha256()
    for p in partes:
        b = p if isinstance(p, bytes) else str(p).encode("utf-8")
        h.update(len(b).to_bytes(8, "little"))
        h.update(b)
    return h.hexdigest()


def ler(tipo: str, k: str) -> bytes | None:
    arq = PASTA / f"livro-{tipo}" / k
    with contextlib.suppress(OSError):
        if ligado():
            dados = arq.read_bytes()
            os.utime(arq)            # usado agora: sai por último
            return dados
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

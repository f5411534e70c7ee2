"""O site sem rede depois da primeira visita (README): `offline.js`, o service worker, na raiz do site (o escopo
é a pasta do script), feito de `servico.js` (ou de `servico_desliga.js`, com `LIVRO_OFFLINE=0`), e os `?v=hash`
nos imports dos módulos do worker dos widgets (um deploy novo nunca junta um worker novo e um módulo velho)."""
import hashlib
import json
import os
import re
from pathlib import Path

AQUI = Path(__file__).resolve().parent
ARQUIVO = "offline.js"
IMPORT = re.compile(r'(from\s+"\./)([\w-]+\.mjs)(?:\?v=\w+)?(")')  # um ?v= de antes sai


def ligado() -> bool:
    """O service worker está ligado neste build? (`LIVRO_OFFLINE=0` desliga)"""
    return os.environ.get("LIVRO_OFFLINE", "1").strip().lower() not in ("0", "nao", "não", "false", "off")


def hash_curto(dados: bytes) -> str:
    """Os 12 primeiros dígitos do sha256: as versões do site, do worker e de cada arquivo do manifesto."""
    return hashlib.sha256(dados).hexdigest()[:12]


def versiona_modulos(pasta: Path) -> dict:
    """Reescreve os imports locais dos .mjs de `pasta` com ?v=hash; devolve nome -> hash."""
    textos = {p.name: p.read_text(encoding="utf-8") for p in sorted(Path(pasta).glob("*.mjs"))}
    hashes = {}

    def hash_de(nome, caminho=()):
        if nome in hashes:
            return hashes[nome]
        if nome in caminho:
            raise SystemExit(f"imports circulares entre os módulos do worker: {' → '.join(caminho + (nome,))}")
        if nome not in textos:
            raise SystemExit(f"um módulo do worker importa ./{nome}, que não está em {pasta}")
        novo = IMPORT.sub(lambda m: f"{m[1]}{m[2]}?v={hash_de(m[2], caminho + (nome,))}{m[3]}", textos[nome])
        textos[nome] = novo
        hashes[nome] = hash_curto(novo.encode())
        return hashes[nome]

    for nome in list(textos):
        hash_de(nome)
    for nome, texto in textos.items():
        (Path(pasta) / nome).write_text(texto, encoding="utf-8")
    return hashes


def _hash_paginas(saida: Path) -> str:
    """Um hash das páginas e do tema (sem o runtime): um deploy que só muda o texto também troca o cache."""
    h = hashlib.sha256()
    for p in sorted(saida.rglob("*")):
        rel = p.relative_to(saida).as_posix()
        if p.is_file() and not rel.startswith(("_static/pyodide/", ARQUIVO)) and p.suffix in (
                ".html", ".css", ".js", ".mjs", ".json", ".svg", ".woff2"):
            h.update(rel.encode() + b"\0" + p.read_bytes())
    return h.hexdigest()[:12]


def escreve(saida: Path, manifesto: dict, modulos: dict) -> Path:
    """Escreve `offline.js` na raiz do site `saida`."""
    saida = Path(saida)
    destino = saida / ARQUIVO
    if not ligado():
        destino.write_text((AQUI / "servico_desliga.js").read_text(encoding="utf-8"), encoding="utf-8")
        return destino
    versao = f"{manifesto['versao']}-{_hash_paginas(saida)}"
    # o que o worker busca pela rede além do runtime (que ele guarda): ele, os módulos, o pyodide.mjs, o manifesto
    guardar = [f"_static/widgets/worker.mjs?v={manifesto['versao']}",
               *[f"_static/widgets/{n}?v={h}" for n, h in sorted(modulos.items()) if n != "worker.mjs"],
               f"_static/{manifesto['mjs']['url']}", "_static/pyodide/manifesto.json"]
    texto = (AQUI / "servico.js").read_text(encoding="utf-8")
    texto = texto.replace("__VERSAO__", json.dumps(versao)).replace("__GUARDAR__", json.dumps(guardar))
    destino.write_text(texto, encoding="utf-8")
    return destino

"""A chave do cache de execução inclui o código de lab/ que a página importa (o porquê está no `_config.yml`);
no CI, a execução é sempre `force`."""
from __future__ import annotations

import hashlib
import os
from pathlib import Path

from .importacoes import fecho
from .myst import Bloco, opcoes, pedacos

RAIZ = Path(__file__).resolve().parents[2]
LAB = RAIZ / "lab"
TAG = "chave-do-cache"


def modulos_do_lab(codigos: list[str], lab: Path = LAB) -> list[Path]:
    """Os arquivos .py de `lab` que os códigos importam, direta ou indiretamente (ordenados)."""
    return sorted(fecho(codigos, lab.resolve())[0].values())


def codigos_da_pagina(texto: str) -> list[str]:
    """O código das células `{code-cell}` de uma página MyST."""
    return ["\n".join(opcoes(p.corpo)[1]) for p in pedacos(texto.splitlines())
            if isinstance(p, Bloco) and p.nome == "code-cell"]


def celula(texto: str, lab: Path = LAB) -> str:
    """A célula escondida com o hash dos módulos de lab/ que a página usa ("" se nenhum)."""
    lab = lab.resolve()
    arquivos = modulos_do_lab(codigos_da_pagina(texto), lab)
    if not arquivos:
        return ""
    h = hashlib.sha256()
    for a in arquivos:
        h.update(a.relative_to(lab).as_posix().encode() + b"\0" + a.read_bytes() + b"\0")
    nomes = ", ".join(a.relative_to(lab).as_posix() for a in arquivos)
    return ("\n\n```{code-cell} python\n"
            f":tags: [remove-cell, {TAG}]\n"
            f"# chave do cache (livro_ext/execucao/chave_cache.py): {nomes}\n"
            f"# sha256 {h.hexdigest()}\n"
            "```\n")


def _executavel(texto: str) -> bool:
    cabeca = texto.lstrip()[:800]
    return cabeca.startswith("---") and "kernelspec" in cabeca


def na_leitura(app, docname, fonte):
    """source-read: acrescenta a célula da chave ao fim de uma página executável."""
    texto = fonte[0]
    if docname.startswith("book/") and _executavel(texto):
        fonte[0] = texto.rstrip("\n") + "\n" + celula(texto, Path(app.confdir) / "lab")


def modo(ambiente=None, config="cache"):
    """O modo de execução: LIVRO_EXECUCAO (force, cache, off), se houver; no CI, `force`."""
    ambiente = os.environ if ambiente is None else ambiente
    pedido = (ambiente.get("LIVRO_EXECUCAO") or "").strip()
    if pedido in ("force", "cache", "off"):
        return pedido
    return "force" if ambiente.get("CI") else config


def no_config(app, config):
    """config-inited: no CI sempre `force` (o site publicado nunca sai do cache)."""
    config.nb_execution_mode = modo(config=config.nb_execution_mode)


def completa_executado(app, doctree):
    """doctree-read: o notebook de jupyter_execute/ de uma página tirada do cache ganha as saídas (o
    myst-nb 1.4 escreve lá o notebook sem elas; a trava e o notebook para baixar o leem)."""
    config = getattr(app.env, "mystnb_config", None)
    caminho = Path(app.outdir).parent / "jupyter_execute" / (app.env.docname + ".ipynb")
    if config is None or config.execution_mode != "cache" or not caminho.is_file():
        return
    import nbformat
    from jupyter_cache import get_cache

    nb = nbformat.read(caminho, as_version=4)
    if any(c.get("outputs") for c in nb.cells if c.cell_type == "code"):
        return  # executado agora: já tem as saídas
    pasta = config.execution_cache_path or Path(app.outdir).parent / ".jupyter_cache"
    try:
        _, completo = get_cache(str(pasta)).merge_match_into_notebook(nb)
    except KeyError:
        return
    caminho.write_text(nbformat.writes(completo), encoding="utf-8")


def setup(app):
    app.connect("config-inited", no_config)
    app.connect("source-read", na_leitura)
    app.connect("doctree-read", completa_executado)
    return {"parallel_read_safe": True, "parallel_write_safe": True}

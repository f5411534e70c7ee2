"""A chave do cache de execução inclui o código de lab/ que a página importa.

Com `execute_notebooks: cache` (o padrão para quem escreve), o jupyter-cache só roda de
novo uma página cujo código mudou; mas ele só compara as células, e uma mudança em
`lab/formato.py` deixaria números velhos. Por isso, ao ler cada página executável
(evento source-read), esta peça acrescenta ao fim dela uma célula escondida, só com um
comentário: o hash dos módulos de lab/ que a página importa, direta ou indiretamente
(achados pelos `import` do código, resolvidos nas pastas de lab/ sem importar nada).
Mudou um deles, mudou a célula, e o cache roda a página de novo.

No CI e nos deploys (variável de ambiente CI definida, como no GitHub Actions) a
execução é sempre `force`: o site publicado nunca sai do cache. `LIVRO_EXECUCAO=force`
(ou `cache`) escolhe o modo à mão: `make book LIVRO_EXECUCAO=force`.
"""
from __future__ import annotations

import hashlib
import importlib.machinery
import os
from pathlib import Path

from .importacoes import importados
from .myst import Bloco, opcoes, pedacos

RAIZ = Path(__file__).resolve().parents[2]
LAB = RAIZ / "lab"
TAG = "chave-do-cache"


def _importados(codigo: str, pacote: str = "") -> frozenset[str]:
    """Os nomes que `codigo` importa ("a.b", e "a.b.c" para `from a.b import c`: quem não é
    módulo, o _acha deixa de fora). pacote: o pacote do módulo (para os imports relativos).
    Guardado em importacoes.importados: os mesmos módulos de lab/ aparecem em toda página."""
    modulos, talvez = importados(codigo, pacote)
    return modulos | talvez


def _acha(nome: str, raizes: list[str]):
    """O spec de `nome` procurado só em `raizes` (e nos pacotes achados lá), sem importar nada."""
    spec, caminhos = None, raizes
    partes = nome.split(".")
    for k in range(len(partes)):
        if caminhos is None:
            return None
        spec = importlib.machinery.PathFinder.find_spec(".".join(partes[:k + 1]), caminhos)
        if spec is None:
            return None
        caminhos = list(spec.submodule_search_locations or []) or None
    return spec


def modulos_do_lab(codigos: list[str], lab: Path = LAB) -> list[Path]:
    """Os arquivos .py de `lab` que os códigos importam, direta ou indiretamente (ordenados)."""
    lab = lab.resolve()
    raizes = [str(lab)]
    achados: dict[Path, str] = {}
    fila = [(nome, "") for c in codigos for nome in _importados(c)]
    while fila:
        nome, pacote = fila.pop()
        spec = _acha(nome, raizes)
        if spec is None or not spec.origin or not spec.has_location:
            continue
        arq = Path(spec.origin).resolve()
        if lab not in arq.parents or arq in achados or arq.suffix != ".py":
            continue
        pacote = spec.name if spec.submodule_search_locations else spec.name.rpartition(".")[0]
        achados[arq] = pacote
        # um submódulo carrega os __init__ dos pacotes acima dele
        partes = spec.name.split(".")
        fila += [(".".join(partes[:k]), "") for k in range(1, len(partes))]
        fila += [(n, pacote) for n in _importados(arq.read_text(encoding="utf-8"), pacote)]
    return sorted(achados)


def codigos_da_pagina(texto: str) -> list[str]:
    """O código das células `{code-cell}` de uma página MyST."""
    codigos = []
    for p in pedacos(texto.splitlines()):
        if isinstance(p, Bloco) and p.nome == "code-cell":
            codigos.append("\n".join(opcoes(p.corpo)[1]))
    return codigos


def celula(texto: str, lab: Path = LAB) -> str:
    """A célula escondida com o hash dos módulos de lab/ que a página usa ("" se nenhum)."""
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
    """doctree-read: o notebook de jupyter_execute/ de uma página tirada do cache ganha as saídas.

    (O myst-nb 1.4, no modo cache, escreve lá o notebook lido, sem as saídas do cache; a trava
    de números e o notebook para baixar leem esse arquivo.)"""
    if getattr(app.env, "mystnb_config", None) is None or app.env.mystnb_config.execution_mode != "cache":
        return
    caminho = Path(app.outdir).parent / "jupyter_execute" / (app.env.docname + ".ipynb")
    if not caminho.is_file():
        return
    import nbformat
    from jupyter_cache import get_cache

    nb = nbformat.read(caminho, as_version=4)
    if any(c.get("outputs") for c in nb.cells if c.cell_type == "code"):
        return  # executado agora: já tem as saídas
    pasta = app.env.mystnb_config.execution_cache_path or Path(app.outdir).parent / ".jupyter_cache"
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

"""Os imports de um código Python, lidos com `ast` (sem rodar nada), e o fecho deles numa pasta: o
único leitor e o único resolvedor do build (a chave do cache, o navegador, os notebooks e o Colab).

    >>> codigo = "%matplotlib inline\\nimport a.b\\ntry:\\n    from .c import d\\nexcept ImportError:\\n    pass\\n"
    >>> [(i.tipo, i.modulo, i.nomes, i.nivel, i.opcional) for i in importacoes(codigo)]
    [('import', 'a.b', (), 0, False), ('from', 'c', ('d',), 1, True)]
    >>> importados(codigo, "p")
    (('a.b', True), ('p.c', True), ('p.c.d', False))
"""
from __future__ import annotations

import ast
import functools
from pathlib import Path
from typing import NamedTuple

# os erros cujo tratamento faz de um import um import opcional (o código segue sem ele)
TRATA_IMPORT = {"ImportError", "ModuleNotFoundError", "Exception"}


class Importacao(NamedTuple):
    tipo: str                   # "import", "from" ou "find_spec" (um módulo pedido pelo nome)
    modulo: str                 # "a.b"; "" em `from . import x`
    nomes: tuple[str, ...]      # os nomes de `from a.b import x, y`
    nivel: int                  # os pontos de um import relativo (0 nos absolutos)
    opcional: bool              # dentro de um `try` que trata ImportError


def _arvore(codigo: str):
    """O código como árvore (ou None, se não é Python); as mágicas do IPython (%, !) viram comentário."""
    linhas = [("#" + ln) if ln.lstrip().startswith(("%", "!")) else ln for ln in codigo.splitlines()]
    try:
        return ast.parse("\n".join(linhas))
    except SyntaxError:
        return None


def _trata_import(no: ast.Try) -> bool:
    """Se um `try` trata ImportError (ou um erro mais geral que ele)."""
    tipos = [t for h in no.handlers for t in (h.type.elts if isinstance(h.type, ast.Tuple) else [h.type])]
    return any(isinstance(t, ast.Name) and t.id in TRATA_IMPORT for t in tipos)


def _comandos(corpo, opcional, saida):
    """Os comandos (só eles podem ser um import) de um corpo e dos corpos dentro dele, cada um
    com o seu `opcional`; as expressões ficam de fora (são quase toda a árvore)."""
    for no in corpo:
        saida.append((no, opcional))
        dentro = opcional or (isinstance(no, ast.Try) and _trata_import(no))
        for campo in ("body", "orelse", "finalbody"):
            filhos = getattr(no, campo, None)
            if isinstance(filhos, list):
                # só o corpo do `try` é opcional; o `else` e o `finally` rodam de qualquer jeito
                _comandos(filhos, dentro if campo == "body" else opcional, saida)
        for bloco in [*getattr(no, "handlers", ()), *getattr(no, "cases", ())]:     # os `except` e os `case`
            _comandos(bloco.body, opcional, saida)


@functools.lru_cache(maxsize=None)
def importacoes(codigo: str) -> tuple[Importacao, ...]:
    """Os imports de `codigo`, na ordem do texto (guardado pelo texto: cada código é lido uma vez por build)."""
    raiz = _arvore(codigo)
    if raiz is None:
        return ()
    comandos = []
    _comandos(raiz.body, False, comandos)
    achados = []
    for no, opcional in comandos:
        if isinstance(no, ast.Import):
            achados += [(no, Importacao("import", a.name, (), 0, opcional)) for a in no.names]
        elif isinstance(no, ast.ImportFrom):
            achados.append((no, Importacao("from", no.module or "", tuple(a.name for a in no.names),
                                           no.level, opcional)))
        elif "find_spec" in codigo:
            # find_spec("x") pode estar em qualquer expressão do comando (mas não nos corpos
            # dentro dele, que já estão na lista)
            for filho in ast.iter_child_nodes(no):
                if isinstance(filho, (ast.stmt, ast.excepthandler, ast.match_case)):
                    continue
                for c in ast.walk(filho):
                    if (isinstance(c, ast.Call) and getattr(c.func, "attr", "") == "find_spec" and c.args
                            and isinstance(c.args[0], ast.Constant) and isinstance(c.args[0].value, str)):
                        achados.append((c, Importacao("find_spec", c.args[0].value, (), 0, opcional)))
    achados.sort(key=lambda par: (par[0].lineno, par[0].col_offset))
    return tuple(i for _, i in achados)


@functools.lru_cache(maxsize=None)
def importados(codigo: str, pacote: str = "") -> tuple[tuple[str, bool], ...]:
    """Os nomes absolutos que `codigo` importa, cada um com True se é com certeza um módulo (o "c" de
    `from a.b import c` pode ser um nome de a.b). Os relativos saem de `pacote` (sem ele, ficam de fora)."""
    nomes = []
    for imp in importacoes(codigo):
        if imp.tipo == "import":
            nomes.append((imp.modulo, True))
        elif imp.tipo == "from" and (pacote or not imp.nivel):
            partes = pacote.split(".") if imp.nivel else []
            base = ".".join(partes[:len(partes) - imp.nivel + 1] + ([imp.modulo] if imp.modulo else []))
            if base:
                nomes.append((base, True))
                nomes += [(f"{base}.{n}", False) for n in imp.nomes if n != "*"]
    return tuple(nomes)


def arquivo(nome: str, pasta: Path) -> Path | None:
    """O arquivo do módulo `nome` em `pasta` ('a.b' -> a/b/__init__.py ou a/b.py), ou None."""
    caminho = pasta.joinpath(*nome.split("."))
    for arq in (caminho / "__init__.py", caminho.with_suffix(".py")):
        if arq.is_file():
            return arq
    return None


def fecho(codigos, pasta: Path, inicio=()) -> tuple[dict[str, Path], dict[str, set[str]]]:
    """Os módulos de `pasta` que os `codigos` e os nomes de `inicio` importam, direta ou indiretamente,
    cada pacote pai junto: ({módulo: arquivo}, {módulo que não está em `pasta`: {quem o importa}})."""
    achados: dict[str, Path] = {}
    fora: dict[str, set[str]] = {}
    fila = [(nome, "a página", True) for nome in inicio]
    fila += [(nome, "a página", certo) for codigo in codigos for nome, certo in importados(codigo)]
    while fila:
        nome, quem, certo = fila.pop()
        partes = nome.split(".")
        for k in range(1, len(partes) + 1):
            sub = ".".join(partes[:k])
            if sub in achados:
                continue
            arq = arquivo(sub, pasta)
            if arq is None:
                if certo:               # o b de `from a import b` pode ser um nome de a, não um módulo
                    fora.setdefault(sub, set()).add(quem)
                break
            achados[sub] = arq
            pacote = sub if arq.name == "__init__.py" else sub.rpartition(".")[0]
            fila += [(n, sub, c) for n, c in importados(arq.read_text(encoding="utf-8"), pacote)]
    return dict(sorted(achados.items())), fora

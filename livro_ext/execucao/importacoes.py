"""Os imports de um código Python, lidos com `ast` (sem rodar nada): um só leitor para o build.

Três peças do build perguntam o que um código importa: a chave do cache de execução
(chave_cache.py), o que vai para o navegador e para os notebooks (navegador.py) e o que o
Colab precisa instalar (notebooks.py). Cada uma lia e percorria a árvore do mesmo código (as
células das páginas e os módulos de lab/, que se repetem em toda página). Agora as três
leem daqui, e cada código é lido uma vez por build.

    >>> [(i.tipo, i.modulo, i.nomes, i.nivel, i.opcional) for i in importacoes(
    ...     "import a.b, c\\nfrom .d import e\\n%matplotlib inline\\n"
    ...     "try:\\n    import f\\nexcept ImportError:\\n    pass\\n"
    ...     "importlib.util.find_spec('g.h')")]
    [('import', 'a.b', (), 0, False), ('import', 'c', (), 0, False), ('from', 'd', ('e',), 1, False), ('import', 'f', (), 0, True), ('find_spec', 'g.h', (), 0, False)]
"""
from __future__ import annotations

import ast
import functools
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
    """O código como árvore (ou None, se não é Python); as linhas de mágica do IPython (%, !)
    viram comentário."""
    linhas = [("#" + ln) if ln.lstrip().startswith(("%", "!")) else ln for ln in codigo.splitlines()]
    try:
        return ast.parse("\n".join(linhas))
    except SyntaxError:
        return None


def _trata_import(no: ast.Try) -> bool:
    """Se um `try` trata ImportError (ou um erro mais geral que ele)."""
    nomes = set()
    for h in no.handlers:
        for t in (h.type.elts if isinstance(h.type, ast.Tuple) else [h.type]):
            if isinstance(t, ast.Name):
                nomes.add(t.id)
    return bool(nomes & TRATA_IMPORT)


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
        for h in getattr(no, "handlers", None) or []:
            _comandos(h.body, opcional, saida)
        for caso in getattr(no, "cases", None) or []:
            _comandos(caso.body, opcional, saida)


@functools.lru_cache(maxsize=None)
def importacoes(codigo: str) -> tuple[Importacao, ...]:
    """Os imports de `codigo`, na ordem do texto (guardado pelo texto: o mesmo código, a mesma resposta)."""
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


def relativo(imp: Importacao, pacote: str) -> str | None:
    """O nome absoluto do módulo de um `from` (resolvendo os pontos a partir de `pacote`, o pacote
    de quem importa); None num import relativo sem pacote."""
    if not imp.nivel:
        return imp.modulo
    if not pacote:
        return None
    partes = pacote.split(".")
    partes = partes[:len(partes) - (imp.nivel - 1)]
    return ".".join(partes + ([imp.modulo] if imp.modulo else []))


@functools.lru_cache(maxsize=None)
def importados(codigo: str, pacote: str = "") -> tuple[frozenset[str], frozenset[str]]:
    """Os nomes absolutos que `codigo` importa: (módulos, e "a.b.c" de cada `from a.b import c`,
    que pode ser um módulo ou um nome dentro dele; quem pergunta decide). Os relativos se
    resolvem a partir de `pacote`, o pacote de quem importa. O resolvedor da chave do cache e do
    navegador."""
    modulos, talvez = set(), set()
    for imp in importacoes(codigo):
        if imp.tipo == "import":
            modulos.add(imp.modulo)
        elif imp.tipo == "from":
            base = relativo(imp, pacote)
            if base:
                modulos.add(base)
                talvez.update(f"{base}.{n}" for n in imp.nomes if n != "*")
    return frozenset(modulos), frozenset(talvez)

"""O fonte das páginas: onde cada chave é colada (uma leitura do código, sem executar) e os widgets."""
from __future__ import annotations

import ast
import builtins
import re
import warnings

from ..widgets import vezes

# Acha cada cola(...)/glue(...) e o nome que ela recebe, também quando o nome é montado:
# f-strings ("rope_{i}_{j}"), somas ("id_" + s), laços sobre valores escritos no código (o nome
# vira as alternativas) e funções da página que colam por dentro (uma chamada g("x5", ...) conta
# como cola("x5", ...), na linha da chamada). O que não dá para saber lendo vira um curinga.
FUNCOES_COLA = ("cola", "glue")
_DESCONHECIDO = object()
_EMBUTIDAS = {n: getattr(builtins, n) for n in ("range", "zip", "enumerate", "list", "sorted", "reversed",
                                                "str", "int", "len", "abs")}
_EMBUTIDAS["tuple"] = list


class _Param(str):
    """O nome de um parâmetro de uma função da página que cola por dentro."""


def _valor(no, env):
    """O valor de uma expressão que só usa constantes, nomes conhecidos e as funções de _EMBUTIDAS;
    senão _DESCONHECIDO. Listas, tuplas e os valores de um dict podem ter elementos desconhecidos."""
    if isinstance(no, (ast.List, ast.Tuple)):
        return [_valor(e, env) for e in no.elts]
    if isinstance(no, ast.Dict) and None not in no.keys:
        chaves = [_valor(k, env) for k in no.keys]
        try:
            return _DESCONHECIDO if _DESCONHECIDO in chaves else dict(zip(chaves, [_valor(v, env) for v in no.values]))
        except TypeError:
            return _DESCONHECIDO
    conhecidos = {k: v for k, v in env.items() if v is not _DESCONHECIDO and not isinstance(v, (set, _Param))}
    try:
        v = eval(compile(ast.Expression(no), "<razao>", "eval"), {"__builtins__": _EMBUTIDAS}, conhecidos)
    except Exception:
        return _DESCONHECIDO
    if isinstance(v, (str, int, float, list, dict)) or v is None:
        return v
    try:                # um iterável (zip, range, dict.items()...): uma lista, com as tuplas como listas
        return [list(t) if isinstance(t, tuple) else t for t in v]
    except TypeError:
        return _DESCONHECIDO


def _liga(alvo, valores, env):
    """Um laço `for alvo in valores`: cada nome do alvo fica com o conjunto de seus valores."""
    if isinstance(alvo, ast.Name):
        try:
            conhecidos = valores is not _DESCONHECIDO and not any(v is _DESCONHECIDO for v in valores)
            env[alvo.id] = set(valores) if conhecidos else _DESCONHECIDO
        except TypeError:
            env[alvo.id] = _DESCONHECIDO
    elif isinstance(alvo, (ast.Tuple, ast.List)):
        n = len(alvo.elts)
        if valores is _DESCONHECIDO or not all(isinstance(v, (list, tuple)) and len(v) == n for v in valores):
            valores = [[_DESCONHECIDO] * n]
        for k, sub in enumerate(alvo.elts):
            _liga(sub, [v[k] for v in valores], env)


# O nome de uma chave vira um padrão regex: o texto escrito, "(?:a|b)" para os valores de um laço,
# CURINGA para o que não dá para saber e, numa função da página, PARAM % nome para um parâmetro.
CURINGA = ".+?"
PARAM = "\x00%s\x00"


def _alternativas(valores) -> str:
    return "(?:" + "|".join(re.escape(str(v)) for v in sorted(valores)) + ")"


def _padrao(no, env) -> str:
    """O padrão regex do nome que a expressão `no` dá a uma chave."""
    v = _valor(no, env)
    if isinstance(v, str):
        return re.escape(v)
    x = env.get(no.id) if isinstance(no, ast.Name) else None
    if isinstance(x, _Param):
        return PARAM % x
    if isinstance(x, set):
        return _alternativas({str(s) for s in x})
    if isinstance(no, ast.JoinedStr):
        return "".join(_padrao_fstring(parte, env) for parte in no.values)
    if isinstance(no, ast.BinOp) and isinstance(no.op, ast.Add):
        return _padrao(no.left, env) + _padrao(no.right, env)
    if isinstance(no, ast.Call) and isinstance(no.func, ast.Name) and no.func.id == "str" and len(no.args) == 1:
        return _padrao(no.args[0], env)
    return CURINGA


def _padrao_fstring(p, env) -> str:
    """Uma peça de f-string: o texto, o valor formatado ou, com o nome de um laço, as alternativas."""
    if isinstance(p, ast.Constant):
        return re.escape(str(p.value))
    so_ela = ast.copy_location(ast.JoinedStr([p]), p)
    x = _valor(p.value, env)
    if x is not _DESCONHECIDO and not isinstance(x, (list, dict)):
        s = _valor(so_ela, env)
        return re.escape(s) if isinstance(s, str) else CURINGA
    nome = p.value.id if isinstance(p.value, ast.Name) else None
    if isinstance(env.get(nome), set):
        alternativas = {_valor(so_ela, dict(env, **{nome: s})) for s in env[nome]}
        return CURINGA if _DESCONHECIDO in alternativas else _alternativas(alternativas)
    if isinstance(env.get(nome), _Param) and p.format_spec is None:
        return PARAM % nome
    return CURINGA


def _argumento(no, i, nome):
    """O i-ésimo argumento de uma chamada (ou o de nome `nome`)."""
    if i is not None and i < len(no.args) and not isinstance(no.args[i], ast.Starred):
        return no.args[i]
    return next((k.value for k in no.keywords if k.arg == nome), None)


class Varredor:
    """Lê as células de uma página em ordem: celula(codigo) -> [(padrão regex da chave, linha da
    chamada, (linha, fim) do comando)], linhas contadas dentro da célula (1-based)."""

    def __init__(self):
        self.globais = {}     # nome -> valor (constantes escritas no código) ou conjunto
        self.funcoes = {}     # nome da função da página -> [(padrão, parâmetros, padrões dos parâmetros)]

    def _chaves_da_chamada(self, no, env):
        """Os padrões das chaves que uma chamada cola (vazia: a chamada não cola)."""
        f = no.func
        nome = f.id if isinstance(f, ast.Name) else (f.attr if isinstance(f, ast.Attribute) else None)
        if nome in FUNCOES_COLA:
            a = _argumento(no, 0, "chave") or _argumento(no, None, "name")
            return [_padrao(a, env)] if a is not None else []
        res = []
        for padrao, params, padroes in self.funcoes.get(nome, []) if isinstance(f, ast.Name) else []:
            pedacos = re.split(PARAM % "(\\w+)", padrao)       # os ímpares: nomes de parâmetros
            for i in range(1, len(pedacos), 2):
                a = _argumento(no, params.index(pedacos[i]) if pedacos[i] in params else None, pedacos[i])
                pedacos[i] = _padrao(a, env) if a is not None else padroes.get(pedacos[i], CURINGA)
            res.append("".join(pedacos))
        return res

    def _comandos(self, corpo, env, achados, dentro_de_funcao):
        for st in corpo:
            if isinstance(st, (ast.FunctionDef, ast.AsyncFunctionDef)):
                self._define(st, env)
                if not dentro_de_funcao:
                    self.globais[st.name] = _DESCONHECIDO
                continue
            if isinstance(st, ast.ClassDef):
                continue
            if isinstance(st, (ast.For, ast.AsyncFor)):
                self._chamadas(st.iter, st, env, achados)
                _liga(st.target, _valor(st.iter, env), env)
                self._comandos(st.body + st.orelse, env, achados, dentro_de_funcao)
                continue
            filhos = [getattr(st, c) for c in ("body", "orelse", "finalbody") if isinstance(getattr(st, c, None), list)]
            filhos += [h.body for h in getattr(st, "handlers", [])] + [c.body for c in getattr(st, "cases", [])]
            if filhos:
                for campo in ("test", "items", "subject"):
                    x = getattr(st, campo, None)
                    for sub in (x if isinstance(x, list) else [x]):
                        if isinstance(sub, ast.AST):
                            self._chamadas(sub, st, env, achados)
                for f in filhos:
                    self._comandos(f, env, achados, dentro_de_funcao)
                continue
            self._chamadas(st, st, env, achados)
            if isinstance(st, ast.Assign) and not dentro_de_funcao:
                v = _valor(st.value, env)
                for alvo in st.targets:
                    if isinstance(alvo, ast.Name):
                        env[alvo.id] = v
                    for sub in alvo.elts if isinstance(alvo, (ast.Tuple, ast.List)) else []:
                        if isinstance(sub, ast.Name):
                            env[sub.id] = _DESCONHECIDO

    def _chamadas(self, raiz, st, env, achados):
        pilha = [raiz]
        while pilha:
            no = pilha.pop()
            if isinstance(no, (ast.Lambda, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                continue
            if isinstance(no, (ast.ListComp, ast.SetComp, ast.GeneratorExp, ast.DictComp)):
                env2 = dict(env)
                for g in no.generators:
                    _liga(g.target, _valor(g.iter, env2), env2)
                for sub in [no.elt] if hasattr(no, "elt") else [no.key, no.value]:
                    self._chamadas(sub, st, env2, achados)
                pilha += [g.iter for g in no.generators]
                continue
            if isinstance(no, ast.Call):
                for padrao in self._chaves_da_chamada(no, env):
                    achados.append((padrao, no.lineno, (st.lineno, st.end_lineno)))
            pilha.extend(reversed(list(ast.iter_child_nodes(no))))

    def _define(self, fn, env):
        """Uma função da página: se ela cola por dentro, guarda o nome que ela dá (com parâmetros)."""
        args = fn.args
        posicionais = args.posonlyargs + args.args
        padroes = {a.arg: _padrao(d, env) for a, d in zip(posicionais[len(posicionais) - len(args.defaults):],
                                                        args.defaults)}
        padroes.update({a.arg: _padrao(d, env) for a, d in zip(args.kwonlyargs, args.kw_defaults) if d is not None})
        env2 = dict(env, **{a.arg: _Param(a.arg) for a in posicionais + args.kwonlyargs})
        dentro = []
        self._comandos(fn.body, env2, dentro, True)
        self.funcoes.pop(fn.name, None)
        if dentro:
            self.funcoes[fn.name] = [(padrao, [a.arg for a in posicionais], padroes) for padrao, _, _ in dentro]

    def celula(self, codigo: str):
        try:
            arvore = _arvore(codigo)
        except SyntaxError:
            return [(re.escape(m.group(2)), codigo[:m.start()].count("\n") + 1, None)
                    for m in re.finditer(r"""(?:cola|glue)\(\s*(['"])(.+?)\1""", codigo)]
        achados = []
        self._comandos(arvore.body, self.globais, achados, False)
        return achados


def especificidade(padrao: str) -> tuple[int, int]:
    """(caracteres fixos, -curingas) de um padrão; alternativas contam como a mais curta delas."""
    def alt(m):
        return min((re.sub(r"\\(.)", r"\1", a) for a in m.group(1).split("|")), key=len)

    fixo = re.sub(r"\(\?:([^)]*)\)", alt, padrao).replace(".+?", "")
    return len(re.sub(r"\\(.)", r"\1", fixo)), -padrao.count(".+?")


def _arvore(codigo: str):
    """ast.parse sem avisos (são da página); se não compila, com as mágicas do IPython (%, !) comentadas."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            return ast.parse(codigo)
        except SyntaxError:
            return ast.parse("\n".join(("#" + ln) if ln.lstrip().startswith(("%", "!")) else ln
                                       for ln in codigo.splitlines()))


# Um widget no fonte de uma página: ```{widget} nome``` (ou :::{widget} nome)
WIDGET_MD = re.compile(r"^\s*(`{3,}|:{3,})\s*\{widget\}\s+(\S+)")


def widgets_no_fonte(texto: str) -> list[tuple[int, str, int, str]]:
    """Cada ```{widget} nome``` do fonte, em ordem: (índice da linha, nome, vez (1, 2... com o nome), cerca)."""
    achados = [(i, m) for i, ln in enumerate(texto.splitlines()) if (m := WIDGET_MD.match(ln))]
    nomes = [m.group(2) for _, m in achados]
    return [(i, nome, vez, m.group(1)) for (i, m), nome, vez in zip(achados, nomes, vezes(nomes))]

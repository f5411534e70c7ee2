"""A razão: onde cada chave é colada, numa leitura do código das páginas (sem executar nada)."""
from __future__ import annotations

import ast
import re
import warnings

from ..widgets import vezes


# ---------------------------------------------------------------------------
# Onde cada chave é colada: uma leitura do código (sem executar nada)
# ---------------------------------------------------------------------------
# Acha cada cola(...)/glue(...) e o nome que ela recebe, também quando o nome é montado:
# f-strings ("rope_{i}_{j}"), somas ("id_" + s), laços sobre listas escritas no código
# (o nome vira as alternativas), e funções da página que colam por dentro (uma chamada
# g("x5", ...) conta como cola("x5", ...), na linha da chamada). O que não dá para saber
# lendo vira um curinga; onde_calcula prefere o padrão mais específico.
FUNCOES_COLA = ("cola", "glue")
_DESCONHECIDO = object()


class _Param:
    """Um parâmetro de uma função da página que cola por dentro."""

    def __init__(self, nome):
        self.nome = nome


def _valor(no, env):
    """O valor de uma expressão, se ela só usa constantes e nomes conhecidos; senão _DESCONHECIDO.
    Listas e tuplas podem ter elementos desconhecidos."""
    D = _DESCONHECIDO
    if isinstance(no, ast.Constant):
        return no.value
    if isinstance(no, (ast.List, ast.Tuple)):
        return [_valor(e, env) for e in no.elts]
    if isinstance(no, ast.Dict):
        ks = [_valor(k, env) if k is not None else D for k in no.keys]
        if any(k is D for k in ks):
            return D
        try:
            return dict(zip(ks, (_valor(v, env) for v in no.values)))
        except TypeError:
            return D
    if isinstance(no, ast.Name):
        v = env.get(no.id, D)
        return v if not isinstance(v, (set, _Param)) else D
    if isinstance(no, ast.UnaryOp) and isinstance(no.op, ast.USub):
        v = _valor(no.operand, env)
        return -v if isinstance(v, (int, float)) else D
    if isinstance(no, ast.BinOp):
        a, b = _valor(no.left, env), _valor(no.right, env)
        if a is D or b is D:
            return D
        try:
            return eval(compile(ast.Expression(ast.BinOp(ast.Constant(a), no.op, ast.Constant(b))),
                                "<razao>", "eval"))
        except Exception:
            return D
    if isinstance(no, ast.Call) and isinstance(no.func, ast.Name) and not no.keywords:
        args = [_valor(a, env) for a in no.args]
        if any(a is D for a in args):
            return D
        f = no.func.id
        try:
            if f == "range" and all(isinstance(a, int) for a in args):
                return list(range(*args))
            if f in ("zip", "enumerate", "list", "tuple", "sorted", "reversed") and \
                    all(isinstance(a, (list, tuple, dict, str)) for a in args[:1]):
                return [list(t) if isinstance(t, tuple) else t
                        for t in {"zip": zip, "enumerate": enumerate, "list": list, "tuple": list,
                                  "sorted": sorted, "reversed": reversed}[f](*args)]
            if f in ("str", "int", "len", "abs") and len(args) == 1:
                return {"str": str, "int": int, "len": len, "abs": abs}[f](args[0])
        except Exception:
            return D
    if isinstance(no, ast.Call) and isinstance(no.func, ast.Attribute) and not no.args:
        obj = _valor(no.func.value, env)
        if isinstance(obj, dict) and no.func.attr in ("items", "keys", "values"):
            return [list(t) if isinstance(t, tuple) else t for t in getattr(obj, no.func.attr)()]
    if isinstance(no, ast.Subscript):
        obj, i = _valor(no.value, env), _valor(no.slice, env)
        try:
            if obj is not D and i is not D:
                return obj[i]
        except Exception:
            return D
    return D


def _liga(alvo, valores, env):
    """Um laço `for alvo in valores`: cada nome do alvo fica com o conjunto de seus valores."""
    if isinstance(alvo, ast.Name):
        if valores is _DESCONHECIDO or any(v is _DESCONHECIDO for v in valores):
            env[alvo.id] = _DESCONHECIDO
        else:
            try:
                env[alvo.id] = set(valores)
            except TypeError:
                env[alvo.id] = _DESCONHECIDO
    elif isinstance(alvo, (ast.Tuple, ast.List)):
        for k, sub in enumerate(alvo.elts):
            if valores is _DESCONHECIDO:
                _liga(sub, _DESCONHECIDO, env)
                continue
            col = []
            for v in valores:
                if isinstance(v, (list, tuple)) and len(v) == len(alvo.elts):
                    col.append(v[k])
                else:
                    col = _DESCONHECIDO
                    break
            _liga(sub, col, env)


def _formata(v, conversao, spec):
    if conversao == ord("r"):
        v = repr(v)
    elif conversao == ord("s"):
        v = str(v)
    elif conversao == ord("a"):
        v = ascii(v)
    return format(v, spec)


def _partes(no, env):
    """As partes do nome de uma chave: ("lit", s), ("alt", {s, ...}), ("param", nome) ou ("?",)."""
    v = _valor(no, env)
    if isinstance(v, str):
        return [("lit", v)]
    if isinstance(no, ast.Name):
        x = env.get(no.id)
        if isinstance(x, _Param):
            return [("param", x.nome)]
        if isinstance(x, set):
            return [("alt", {str(s) for s in x})]
        return [("?",)]
    if isinstance(no, ast.JoinedStr):
        partes = []
        for p in no.values:
            if isinstance(p, ast.Constant):
                partes.append(("lit", str(p.value)))
                continue
            spec = ""
            if p.format_spec is not None:
                sv = _valor(p.format_spec, env)
                if not isinstance(sv, str):
                    partes.append(("?",))
                    continue
                spec = sv
            x = _valor(p.value, env)
            if x is not _DESCONHECIDO and not isinstance(x, (list, dict)):
                partes.append(("lit", _formata(x, p.conversion, spec)))
            elif isinstance(p.value, ast.Name) and isinstance(env.get(p.value.id), set):
                try:
                    partes.append(("alt", {_formata(s, p.conversion, spec) for s in env[p.value.id]}))
                except (TypeError, ValueError):
                    partes.append(("?",))
            elif isinstance(p.value, ast.Name) and isinstance(env.get(p.value.id), _Param) and not spec:
                partes.append(("param", p.value.id))
            else:
                partes.append(("?",))
        return partes
    if isinstance(no, ast.BinOp) and isinstance(no.op, ast.Add):
        return _partes(no.left, env) + _partes(no.right, env)
    if isinstance(no, ast.Call) and isinstance(no.func, ast.Name) and no.func.id == "str" and len(no.args) == 1:
        return _partes(no.args[0], env)
    return [("?",)]


def _regex(partes) -> str:
    out = []
    for p in partes:
        if p[0] == "lit":
            out.append(re.escape(p[1]))
        elif p[0] == "alt":
            out.append("(?:" + "|".join(re.escape(s) for s in sorted(p[1])) + ")")
        else:
            out.append(".+?")
    return "".join(out)


def _nome_funcao(no):
    f = no.func
    return f.id if isinstance(f, ast.Name) else (f.attr if isinstance(f, ast.Attribute) else None)


def _argumento(no, i, nome):
    """O i-ésimo argumento de uma chamada (ou o de nome `nome`)."""
    if i is not None and i < len(no.args) and not isinstance(no.args[i], ast.Starred):
        return no.args[i]
    for k in no.keywords:
        if k.arg == nome:
            return k.value
    return None


class Varredor:
    """Lê as células de uma página em ordem e acha onde cada chave é colada.

    celula(codigo) -> [(padrão regex da chave, linha da chamada, (linha, fim) do comando)],
    linhas contadas dentro da célula (1-based).
    """

    def __init__(self):
        self.globais = {}     # nome -> valor (constantes escritas no código) ou conjunto
        self.funcoes = {}     # nome da função da página -> [(partes do nome, parâmetros)]

    def _chaves_da_chamada(self, no, env):
        """[partes] das chaves que uma chamada cola (vazia: a chamada não cola)."""
        nome = _nome_funcao(no)
        if nome in FUNCOES_COLA:
            a = _argumento(no, 0, "chave") or _argumento(no, None, "name")
            return [_partes(a, env)] if a is not None else []
        if isinstance(no.func, ast.Name) and nome in self.funcoes:
            res = []
            for partes, params, padroes in self.funcoes[nome]:
                nova = []
                for p in partes:
                    if p[0] != "param":
                        nova.append(p)
                        continue
                    i = params.index(p[1]) if p[1] in params else None
                    a = _argumento(no, i, p[1])
                    nova += _partes(a, env) if a is not None else padroes.get(p[1], [("?",)])
                res.append(nova)
            return res
        return []

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
                self._comandos(st.body, env, achados, dentro_de_funcao)
                self._comandos(st.orelse, env, achados, dentro_de_funcao)
                continue
            filhos = [getattr(st, c) for c in ("body", "orelse", "finalbody") if isinstance(getattr(st, c, None), list)]
            filhos += [h.body for h in getattr(st, "handlers", [])]
            filhos += [c.body for c in getattr(st, "cases", [])]
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
                    elif isinstance(alvo, (ast.Tuple, ast.List)):
                        for sub in alvo.elts:
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
                filhos = [no.elt] if hasattr(no, "elt") else [no.key, no.value]
                for sub in filhos:
                    self._chamadas(sub, st, env2, achados)
                for g in no.generators:
                    pilha.append(g.iter)
                continue
            if isinstance(no, ast.Call):
                for partes in self._chaves_da_chamada(no, env):
                    achados.append((partes, no.lineno, (st.lineno, st.end_lineno)))
            pilha.extend(reversed(list(ast.iter_child_nodes(no))))

    def _define(self, fn, env):
        """Uma função da página: se ela cola por dentro, guarda o nome que ela dá (com parâmetros)."""
        args = fn.args
        params = [a.arg for a in args.posonlyargs + args.args]
        posicionais = args.posonlyargs + args.args
        padroes = {a.arg: _partes(d, env) for a, d in zip(posicionais[len(posicionais) - len(args.defaults):],
                                                        args.defaults)}
        padroes.update({a.arg: _partes(d, env) for a, d in zip(args.kwonlyargs, args.kw_defaults)
                        if d is not None})
        env2 = dict(env)
        for a in args.posonlyargs + args.args + args.kwonlyargs:
            env2[a.arg] = _Param(a.arg)
        dentro = []
        self._comandos(fn.body, env2, dentro, True)
        if dentro:
            self.funcoes[fn.name] = [(partes, params, padroes) for partes, _, _ in dentro]
        else:
            self.funcoes.pop(fn.name, None)

    def celula(self, codigo: str):
        try:
            arvore = _analisa(_sem_magicas(codigo))
        except SyntaxError:
            return [(re.escape(m.group(2)), codigo[:m.start()].count("\n") + 1, None)
                    for m in re.finditer(r"""(?:cola|glue)\(\s*(['"])(.+?)\1""", codigo)]
        achados = []
        self._comandos(arvore.body, self.globais, achados, False)
        return [(_regex(p), lin, st) for p, lin, st in achados]


def chamadas_glue(codigo: str, varredor: Varredor | None = None):
    """[(padrão regex da chave, número da linha no trecho, 1-based), ...] de cada cola/glue."""
    v = varredor or Varredor()
    return [(p, lin) for p, lin, _ in v.celula(codigo)]


def chaves_glue_no_codigo(codigo: str, varredor: Varredor | None = None) -> list[str]:
    """Os nomes dados a cola(...)/glue(...) num trecho de código, como padrões regex."""
    return [p for p, _ in chamadas_glue(codigo, varredor)]


def especificidade(padrao: str) -> tuple[int, int]:
    """(caracteres fixos, -curingas) de um padrão: o mais específico ganha. Uma lista de
    alternativas conta como a mais curta delas."""
    curingas = padrao.count(".+?")

    def alt(m):
        return min((re.sub(r"\\(.)", r"\1", a) for a in m.group(1).split("|")), key=len)

    fixo = re.sub(r"\(\?:([^)]*)\)", alt, padrao).replace(".+?", "")
    fixo = re.sub(r"\\(.)", r"\1", fixo)
    return len(fixo), -curingas


def _analisa(codigo: str):
    """ast.parse sem avisos (um "\\ " numa string sem r"" é problema da página, não daqui)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return ast.parse(codigo)


def _sem_magicas(codigo: str) -> str:
    """O código como Python puro: se não compila, as linhas de mágica do IPython (%, !)
    viram comentário (uma linha "% (a, b)" que continua uma expressão fica como está)."""
    try:
        _analisa(codigo)
        return codigo
    except SyntaxError:
        return "\n".join(("#" + ln) if ln.lstrip().startswith(("%", "!")) else ln
                         for ln in codigo.splitlines())


def tags_da_celula(cell) -> set:
    return set(cell.get("metadata", {}).get("tags", []) or [])


# Um widget no fonte de uma página: ```{widget} nome``` (ou :::{widget} nome)
WIDGET_MD = re.compile(r"^\s*(`{3,}|:{3,})\s*\{widget\}\s+(\S+)")


def widgets_no_fonte(texto: str) -> list[tuple[int, str, int, str]]:
    """Cada ```{widget} nome``` do fonte de uma página, em ordem: (índice da linha, nome, vez, cerca);
    vez é 1 no primeiro widget com esse nome, 2 no segundo..."""
    achados = [(i, m) for i, ln in enumerate(texto.splitlines()) if (m := WIDGET_MD.match(ln))]
    nomes = [m.group(2) for _, m in achados]
    return [(i, nome, vez, m.group(1)) for (i, m), nome, vez in zip(achados, nomes, vezes(nomes))]

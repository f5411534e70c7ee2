"""A razão de números: todo número que o leitor vê, numa lista só, travada no git.

Depois de um build, `gerar` junta num arquivo (`_build/numeros.json`):

- cada valor colado com `cola` (ou `glue`), como o leitor o vê: a string, o LaTeX, a tabela
  em Markdown, "(figura)" para uma figura; um diagrama (HTML/SVG de lab/diagramas.py) entra
  como o seu texto visível: a descrição (aria-label), o título e cada rótulo numa linha, então
  uma forma que muda ("5 × 4" → "5 × 8") aparece;
- cada saída de texto de uma célula de código visível (stdout, e o resultado da célula,
  em text/html, text/markdown, text/latex ou text/plain, o que a página mostra);
- o estado inicial de cada widget (o que a diretiva ```{widget}``` põe na página antes de o
  Python do navegador carregar), lido do HTML construído: o texto visível de cada elemento
  com a classe `livro-widget`, uma linha por bloco, " | " entre células de tabela, campos
  como [valor], marcas como [x] / [ ], a opção escolhida de uma lista. Só a classe do
  contêiner e o texto contam: mudar outras classes, cores ou estilos não mexe na razão.

A chave é a página (`book/bloco`) e, dentro dela, o nome do glue (`x5`), a célula
(`celula:03.2` é a 2ª saída da 3ª célula de código da página) ou o widget (`widget:saida`;
o segundo widget igual na mesma página é `widget:saida-2`). A cópia travada fica em
`book/numeros.lock.json`; `verificar` falha com uma linha por número que mudou
(página, chave, valor velho → valor novo; num valor de várias linhas, a linha que mudou),
e também por chave nova (+) ou sumida (-).

    python book/_ext/razao.py gerar _build       # escreve _build/numeros.json
    python book/_ext/razao.py verificar _build   # compara com book/numeros.lock.json
    python book/_ext/razao.py aceitar _build     # copia _build/numeros.json para o lock

Valores que nunca entram: um valor colado com caractere de controle (um TAB, um \\f, um
\\b: quase sempre LaTeX numa string sem r"...", em que "\\times" vira TAB + "imes") ou
com um "\\n" que comeu um comando LaTeX ("\\neq"). `gerar` e `verificar` falham dizendo
página e chave (linhas "!"), e `aceitar` se recusa a gravá-los no lock.

A regra do que NÃO entra na razão (para a trava nunca piscar):

1. a página `book/numeros` (ela mostra a razão; entraria em laço);
2. células com a tag `nao-travar`: nem as saídas delas, nem os glue que elas criam
   (também os colados por uma função da página chamada nessa célula).
   Use-a numa célula que mede tempo, memória ou mostra algo que muda a cada execução;
3. saídas que o leitor não vê: células com `remove-cell` ou `remove-output` (os glue
   dessas células entram, pois aparecem no texto), stderr, imagens, widgets Jupyter, JavaScript;
   num widget do livro, o que está escondido (`hidden`, `display: none`, <script>, <style>);
4. saídas com cara de volátil, mesmo sem a tag: endereços de memória (`at 0x7f…`),
   tempos (`Wall time`, `CPU times`, `per loop`, `it/s`). `gerar` avisa quais pulou;
   prefira marcar a célula com `nao-travar`.

Um float cru com 17 dígitos numa saída (`0.7392358889419289`) entra com 12 dígitos
significativos: a libm de outra máquina pode mudar o último dígito.

Duas construções limpas dão a mesma razão, byte a byte (chaves em ordem, sem tempos).
"""
from __future__ import annotations

import argparse
import ast
import html as html_mod
import json
import re
import sys
import unicodedata
import warnings
from html.parser import HTMLParser
from pathlib import Path

RAIZ = Path(__file__).resolve().parents[2]
LOCK = RAIZ / "book" / "numeros.lock.json"
NOME = "numeros.json"
PAGINA_RAZAO = "book/numeros"
TAG_FORA = "nao-travar"
TAGS_INVISIVEIS = {"remove-cell", "remove-output"}
FIGURA = "(figura)"

# Saídas que mudam a cada execução: nunca são números do livro.
VOLATEIS = [
    re.compile(r"\bat 0x[0-9a-fA-F]{4,}"),          # <objeto at 0x7f…>
    re.compile(r"\b0x[0-9a-fA-F]{8,}\b"),           # endereços soltos
    re.compile(r"Wall time|CPU times|per loop|\bit/s\b|s/it\b"),
]


# ---------------------------------------------------------------------------
# Coleta
# ---------------------------------------------------------------------------
def _texto(v):
    return "".join(v) if isinstance(v, list) else str(v)


# O texto que o leitor vê num pedaço de HTML (widgets, diagramas em SVG, saídas em HTML).
# Só o texto conta, nunca o estilo: linhas nos elementos de bloco, " | " entre células de
# tabela, campos como [valor], marcas como [x] ou [ ], a opção escolhida de uma lista.
_BLOCOS = {
    "address", "article", "aside", "blockquote", "br", "caption", "dd", "details", "div", "dl",
    "dt", "fieldset", "figcaption", "figure", "footer", "form", "h1", "h2", "h3", "h4", "h5", "h6",
    "header", "hr", "legend", "li", "main", "nav", "ol", "p", "pre", "section", "summary", "table",
    "tbody", "tfoot", "thead", "tr", "ul",
    "svg", "text", "title", "desc",                     # SVG: cada rótulo numa linha
}
_CELULAS = {"td", "th"}
_PULA = {"script", "style", "template", "head"}
_VAZIOS = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "param",
           "source", "track", "wbr"}
_CAMPOS_TEXTO = {"", "text", "number", "search", "email", "url", "tel"}
_SEP_CELULA = "\x1f"


class _TextoVisivel(HTMLParser):
    """Junta o texto visível de um HTML. classe=None: o documento inteiro numa peça;
    classe="livro-widget": uma peça para cada elemento com essa classe (sem aninhar)."""

    def __init__(self, classe=None):
        super().__init__(convert_charrefs=True)
        self.classe = classe
        self.pilha = []          # [(tag, oculto, raiz)]
        self.pecas = []          # [(atributos do contêiner, [pedaços de texto])]
        self.atual = None if classe else []
        if classe is None:
            self.pecas.append(({}, self.atual))
        self.lista = None        # [(texto, escolhida)] da <select> aberta
        self.opcao = None

    def _oculto(self):
        return any(o for _, o, _ in self.pilha)

    def _poe(self, texto):
        if self.atual is not None and not self._oculto():
            if self.opcao is not None:
                self.opcao.append(texto)
            else:
                self.atual.append(texto)

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        classes = (a.get("class") or "").split()
        raiz = False
        if self.classe and self.atual is None and self.classe in classes:
            self.atual, raiz = [], True
            self.pecas.append((a, self.atual))
        estilo = (a.get("style") or "").replace(" ", "").lower()
        oculto = (tag in _PULA or "hidden" in a or "display:none" in estilo
                  or "visibility:hidden" in estilo)
        if tag == "input":
            if not oculto:
                tipo = (a.get("type") or "").lower()
                if tipo in _CAMPOS_TEXTO:
                    self._poe(f" [{a.get('value') or ''}] ")
                elif tipo in ("checkbox", "radio"):
                    self._poe(" [x] " if "checked" in a else " [ ] ")
                elif tipo in ("submit", "button", "reset") and a.get("value"):
                    self._poe(f" {a['value']} ")
            return
        if tag in _VAZIOS:
            if tag in ("br", "hr"):
                self._poe("\n")
            return
        self.pilha.append((tag, oculto, raiz))
        if tag == "select":
            self.lista = []
        elif tag == "option" and self.lista is not None:
            self.opcao = []
            self.lista.append(("selected" in a, self.opcao))
        elif tag in _CELULAS:
            self._poe(_SEP_CELULA)
        elif tag in _BLOCOS:
            self._poe("\n")
        else:
            self._poe(" ")                          # peças em linha: o CSS as separa
        if tag == "svg" and a.get("aria-label") and not self._oculto():
            self._poe(f"\n(descrição: {a['aria-label']})\n")

    def handle_startendtag(self, tag, attrs):
        self.handle_starttag(tag, attrs)
        if tag not in _VAZIOS and self.pilha and self.pilha[-1][0] == tag:
            self.handle_endtag(tag)

    def handle_endtag(self, tag):
        if not any(t == tag for t, _, _ in self.pilha):
            return                                  # fecha o que não abriu: ignora
        while self.pilha:
            t, _, raiz = self.pilha.pop()
            if t == "option":
                self.opcao = None
            elif t == "select" and self.lista is not None:
                lista, self.lista = self.lista, None
                escolhida = next((o for sel, o in lista if sel), lista[0][1] if lista else [])
                self._poe(" [" + " ".join("".join(escolhida).split()) + "] ")
            elif t in _BLOCOS:
                self._poe("\n")
            else:
                self._poe(" ")
            if raiz:
                self.atual = None
            if t == tag:
                break

    def handle_data(self, data):
        if not any(t in ("pre", "textarea") for t, _, _ in self.pilha):
            data = re.sub(r"\s+", " ", data)        # no HTML, uma quebra de linha é um espaço
        self._poe(data)


def _linhas_visiveis(pedacos) -> str:
    linhas = []
    for ln in "".join(pedacos).split("\n"):
        celulas = [" ".join(c.split()) for c in ln.split(_SEP_CELULA)]
        ln = " | ".join(c for c in celulas if c)
        if ln:
            linhas.append(ln)
    return "\n".join(linhas)


def _html_para_texto(h: str) -> str:
    """O texto visível de um pedaço de HTML, uma linha por bloco."""
    p = _TextoVisivel()
    p.feed(h)
    p.close()
    return _linhas_visiveis(p.pecas[0][1])


CLASSE_WIDGET = "livro-widget"


def widgets_no_html(h: str) -> dict:
    """{"widget:nome": texto visível} de cada widget de uma página HTML.

    Só depende da classe do contêiner (`livro-widget`) e do texto que o leitor vê; o nome
    vem de `data-widget` (ou do id). Dois widgets com o mesmo nome: `nome`, `nome-2`, ...
    """
    p = _TextoVisivel(CLASSE_WIDGET)
    p.feed(h)
    p.close()
    itens = {}
    for n, (attrs, pedacos) in enumerate(p.pecas, 1):
        nome = attrs.get("data-widget") or attrs.get("id") or str(n)
        chave, k = f"widget:{nome}", 1
        while chave in itens:
            k += 1
            chave = f"widget:{nome}-{k}"
        itens[chave] = _linhas_visiveis(pedacos)
    return itens


def _latex(s: str) -> str:
    s = s.strip()
    if s.startswith("$$") and s.endswith("$$"):
        s = s[2:-2]
    elif s.startswith("$") and s.endswith("$"):
        s = s[1:-1]
    s = s.strip()
    if s.startswith(r"\displaystyle"):
        s = s[len(r"\displaystyle"):]
    return s.strip()


def _limpa(s: str) -> str:
    return "\n".join(ln.rstrip() for ln in s.strip("\n").splitlines())


_FLOAT_LONGO = re.compile(r"(?<![\w.])-?\d+\.\d{10,}(?:e[-+]?\d+)?(?![\w.])")


def _floats_curtos(s: str) -> str:
    """repr de float com 17 dígitos -> 12 significativos (a libm de outra máquina
    pode mudar o último dígito; 12 dígitos não piscam)."""
    return _FLOAT_LONGO.sub(lambda m: repr(float(format(float(m.group()), ".12g"))), s)


def valor_glue(data: dict) -> str:
    """O valor colado como o leitor o vê (string já formatada, LaTeX ou figura)."""
    if "text/latex" in data:
        return _latex(_texto(data["text/latex"]))
    if "text/markdown" in data:
        return _limpa(_texto(data["text/markdown"]))
    if "text/html" in data:
        return _html_para_texto(_texto(data["text/html"]))
    if any(k.startswith("image/") for k in data):
        return FIGURA
    if "text/plain" in data:
        t = _texto(data["text/plain"])
        try:
            v = ast.literal_eval(t)
        except (SyntaxError, ValueError):
            v = t
        return _limpa(str(v))
    return ""


def valor_saida(out: dict) -> str | None:
    """O texto que uma saída de célula mostra, ou None se não é texto para o leitor."""
    tipo = out.get("output_type")
    if tipo == "stream":
        return _limpa(_texto(out.get("text", ""))) if out.get("name") == "stdout" else None
    if tipo not in ("execute_result", "display_data"):
        return None
    data = out.get("data", {})
    if any(k.startswith(("image/", "application/vnd.jupyter.widget", "application/javascript"))
           for k in data):
        return None
    if "text/html" in data:
        return _html_para_texto(_texto(data["text/html"]))
    if "text/markdown" in data:
        return _limpa(_texto(data["text/markdown"]))
    if "text/latex" in data:
        return _latex(_texto(data["text/latex"]))
    if "text/plain" in data:
        return _limpa(_texto(data["text/plain"]))
    return None


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


def _tags(cell) -> set:
    return set(cell.get("metadata", {}).get("tags", []) or [])


# Caracteres de controle num valor colado são quase sempre um "\t" ou "\f" de LaTeX numa
# string sem r"": "\times" vira TAB + "imes". O \n é o único permitido (quebra de linha).
_CONTROLE_COLADO = re.compile(r"[\x00-\x09\x0b-\x1f\x7f-\x9f]")
_CONTROLE_SAIDA = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")      # a saída pode ter TAB
# ... e um "\n" de LaTeX perdido: "\neq" numa string sem r"" vira quebra de linha + "eq".
_LATEX_PERDIDO = re.compile(r"\n(?:eq|abla|eg|ewline|onumber|olimits|otin|leq|geq|mid|parallel|subseteq)"
                            r"(?![a-zA-Z])")


def _nome_controle(c: str) -> str:
    nomes = {"\t": "TAB", "\r": "CR", "\x0c": "FF", "\x08": "BS", "\x07": "BEL", "\x0b": "VT",
             "\x00": "NUL", "\x1b": "ESC"}
    return f"U+{ord(c):04X} ({nomes.get(c) or unicodedata.name(c, 'controle')})"


def controles(texto: str, saida=False) -> list[str]:
    """Os caracteres de controle proibidos num texto, nomeados ("U+0009 (TAB)")."""
    padrao = _CONTROLE_SAIDA if saida else _CONTROLE_COLADO
    return sorted({_nome_controle(c) for c in padrao.findall(texto)})


def _problemas_do_glue(chave: str, data: dict) -> list[str]:
    achados = []
    for mime in ("text/latex", "text/markdown", "text/html"):
        if mime in data:
            bruto = _texto(data[mime])
            achados += controles(bruto)
            if mime == "text/latex":
                achados += ["\\n seguido de um comando LaTeX (um \\neq, \\nabla... sem r\"\")"
                            for _ in _LATEX_PERDIDO.findall(bruto)[:1]]
    valor = valor_glue(data)
    achados += controles(valor)
    if not achados:
        return []
    return [f"{chave}: caractere de controle no valor colado: {', '.join(sorted(set(achados)))} "
            f"em {_curto(repr(valor), 80)} (use uma string r\"...\" no LaTeX)"]


def _saidas(outputs: list) -> list:
    """As saídas de uma célula, com pedaços seguidos do mesmo stream juntados: sob carga o kernel
    pode mandar um print em dois pedaços, e a razão não pode depender disso."""
    res = []
    for out in outputs:
        ant = res[-1] if res else {}
        if (out.get("output_type") == "stream" and ant.get("output_type") == "stream"
                and ant.get("name") == out.get("name")):
            res[-1] = dict(ant, text=_texto(ant.get("text", "")) + _texto(out.get("text", "")))
        else:
            res.append(out)
    return res


def itens_do_notebook(nb: dict, glue: dict) -> tuple[dict, list, list]:
    """Um notebook executado (dict) e seus glue -> ({chave: valor}, [avisos], [problemas])."""
    itens, avisos, problemas, fora = {}, [], [], []
    varredor = Varredor()
    n_codigo = 0
    for cell in nb.get("cells", []):
        if cell.get("cell_type") != "code":
            continue
        n_codigo += 1
        tags = _tags(cell)
        chaves = chaves_glue_no_codigo(_texto(cell.get("source", "")), varredor)
        if TAG_FORA in tags:
            fora += chaves
            continue
        if tags & TAGS_INVISIVEIS:
            continue
        for j, out in enumerate(_saidas(cell.get("outputs", [])), 1):
            v = valor_saida(out)
            if v is None or v == "":
                continue
            chave = f"celula:{n_codigo:02d}.{j}"
            if any(p.search(v) for p in VOLATEIS):
                avisos.append(f"{chave}: saída volátil pulada (marque a célula com `{TAG_FORA}`)")
                continue
            ruins = controles(v, saida=True)
            if ruins:
                problemas.append(f"{chave}: caractere de controle na saída: {', '.join(ruins)}")
            itens[chave] = _floats_curtos(v)
    for chave, out in glue.items():
        if any(re.fullmatch(p, chave) for p in fora):
            continue
        data = out.get("data", {})
        problemas += _problemas_do_glue(chave, data)
        itens[chave] = valor_glue(data)
    return itens, avisos, problemas


def coletar_pagina(ipynb: Path, glue_json: Path | None) -> tuple[dict, list]:
    """-> ({chave: valor}, [avisos]) de uma página executada."""
    nb = json.loads(ipynb.read_text(encoding="utf-8"))
    glue = json.loads(glue_json.read_text(encoding="utf-8")) if glue_json and glue_json.exists() else {}
    itens, avisos, _ = itens_do_notebook(nb, glue)
    return itens, avisos


def _paginas_html(html: Path) -> dict:
    """{página: arquivo} das páginas HTML do livro que têm widget."""
    res = {}
    if not html.is_dir():
        return res
    for arq in sorted(html.rglob("*.html")):
        rel = arq.relative_to(html)
        if rel.parts[0].startswith("_"):
            continue
        if CLASSE_WIDGET in arq.read_text(encoding="utf-8", errors="replace"):
            res[rel.with_suffix("").as_posix()] = arq
    return res


class ErroRazao(Exception):
    """Valores que não podem entrar na razão (ex.: caractere de controle num valor colado)."""

    def __init__(self, problemas):
        self.problemas = problemas
        super().__init__("\n".join(problemas))


def coletar(build: Path, verboso=False, problemas: list | None = None) -> dict:
    """Todas as páginas de um build -> razão {página: {chave: valor}}.

    Entram os notebooks executados (jupyter_execute/) e os widgets do HTML (html/).
    Um valor com caractere de controle é um problema (página · chave): se `problemas` é uma
    lista, eles vão para ela; senão, coletar levanta ErroRazao.
    """
    base = Path(build) / "jupyter_execute"
    if not base.is_dir():
        sys.exit(f"Não achei {base}: rode `make book` antes.")
    razao, achados = {}, []
    for ipynb in sorted(base.rglob("*.ipynb")):
        pagina = ipynb.relative_to(base).with_suffix("").as_posix()
        if pagina == PAGINA_RAZAO or ".ipynb_checkpoints" in ipynb.parts:
            continue
        nb = json.loads(ipynb.read_text(encoding="utf-8"))
        gj = ipynb.with_name(ipynb.stem + ".glue.json")
        glue = json.loads(gj.read_text(encoding="utf-8")) if gj.exists() else {}
        itens, avisos, probs = itens_do_notebook(nb, glue)
        achados += [f"{pagina} · {p}" for p in probs]
        if verboso:
            for a in avisos:
                print(f"  aviso: {pagina} {a}")
        if itens:
            razao[pagina] = itens
    for pagina, arq in _paginas_html(Path(build) / "html").items():
        if pagina == PAGINA_RAZAO:
            continue
        razao.setdefault(pagina, {}).update(widgets_no_html(arq.read_text(encoding="utf-8")))
    if achados:
        if problemas is None:
            raise ErroRazao(achados)
        problemas += achados
    return {p: dict(sorted(v.items())) for p, v in sorted(razao.items())}


def serializa(razao: dict) -> str:
    return json.dumps(razao, ensure_ascii=False, indent=1, sort_keys=True) + "\n"


# ---------------------------------------------------------------------------
# Comparação
# ---------------------------------------------------------------------------
def _curto(s: str, n=140) -> str:
    s = s.replace("\n", " ⏎ ")
    s = _CONTROLE_COLADO.sub(lambda m: f"\\x{ord(m.group()):02x}", s)   # um TAB fica visível
    return s if len(s) <= n else s[: n - 1] + "…"


def diferencas(velha: dict, nova: dict, paginas: set | None = None) -> list[str]:
    """Uma linha por número que mudou, entrou (+) ou saiu (-)."""
    linhas = []
    todas = sorted(set(velha) | set(nova))
    if paginas is not None:
        todas = [p for p in todas if p in paginas]
    for pag in todas:
        a, b = velha.get(pag, {}), nova.get(pag, {})
        for chave in sorted(set(a) | set(b)):
            if chave not in b:
                linhas.append(f"- {pag} · {chave}: {_curto(a[chave])} (sumiu)")
            elif chave not in a:
                linhas.append(f"+ {pag} · {chave}: {_curto(b[chave])} (novo)")
            elif a[chave] != b[chave]:
                la, lb = a[chave].splitlines(), b[chave].splitlines()
                if len(la) == len(lb) > 1:
                    for i, (x, y) in enumerate(zip(la, lb), 1):
                        if x != y:
                            linhas.append(f"~ {pag} · {chave} linha {i}: {_curto(x)} → {_curto(y)}")
                else:
                    linhas.append(f"~ {pag} · {chave}: {_curto(a[chave])} → {_curto(b[chave])}")
    return linhas


def ler_lock(lock: Path = LOCK) -> dict:
    if not lock.exists():
        return {}
    return json.loads(lock.read_text(encoding="utf-8"))


def verificar(build: Path, lock: Path = LOCK, parcial=False) -> list[str]:
    """Gera a razão do build e devolve as linhas de diferença (vazia = tudo igual).

    parcial: compara só as páginas que este build executou (um build de poucas páginas).
    """
    problemas = []
    nova = coletar(build, problemas=problemas)
    (Path(build) / NOME).write_text(serializa(nova), encoding="utf-8")
    paginas = None
    if parcial:
        base = Path(build) / "jupyter_execute"
        paginas = {p.relative_to(base).with_suffix("").as_posix() for p in base.rglob("*.ipynb")}
    return ["! " + p for p in problemas] + diferencas(ler_lock(lock), nova, paginas)


# ---------------------------------------------------------------------------
# A página para instrutores: a diretiva {razao}
# ---------------------------------------------------------------------------
_WIDGET_MD = re.compile(r"^\s*(`{3,}|:{3,})\s*\{widget\}\s+(\S+)")


def _funcao_do_widget(nome: str) -> str:
    """'lab/widgets_api.py:LINHA, função F' que calcula um widget (ou "")."""
    try:
        import inspect

        lab = str(RAIZ / "lab")
        if lab not in sys.path:
            sys.path.insert(0, lab)
        import widgets_api

        f = widgets_api.WIDGETS[nome][3]
        _, linha = inspect.getsourcelines(f)
        return f"lab/widgets_api.py:{linha}, função {f.__name__}"
    except Exception:
        return ""


def codigo_das_chaves(md: Path) -> dict:
    """Lê o fonte de uma página MyST -> {chave: (linha no .md, código)} para células e widgets,
    e em "__glue__" a lista [(padrão da chave, linha no .md, código)] de cada cola/glue."""
    from myst_nb.core.read import read_myst_markdown_notebook

    texto = md.read_text(encoding="utf-8")
    nb = read_myst_markdown_notebook(texto, add_source_map=True)
    linhas_md = texto.splitlines()
    mapa = nb.metadata.get("source_map", [])
    res, padroes = {}, []
    varredor = Varredor()
    n = 0
    for idx, cell in enumerate(nb.cells):
        if cell.cell_type != "code":
            continue
        n += 1
        fence = mapa[idx] if idx < len(mapa) else 0          # linha do ```{code-cell} (0-based)
        corpo = cell.source.splitlines()
        # onde o corpo começa no .md (depois das opções :tags: ...)
        ini = fence
        if corpo:
            for k in range(fence, min(fence + 40, len(linhas_md))):
                if linhas_md[k] == corpo[0]:
                    ini = k
                    break
        res[f"celula:{n:02d}"] = (ini + 1, cell.source)
        for padrao, lin, st in varredor.celula(cell.source):
            if st is not None:
                trecho = "\n".join(corpo[st[0] - 1: st[1]])
            else:
                trecho = corpo[lin - 1] if 0 < lin <= len(corpo) else ""
            padroes.append((padrao, ini + lin, trecho))
    res["__glue__"] = padroes
    vistos = {}
    for i, ln in enumerate(linhas_md):
        m = _WIDGET_MD.match(ln)
        if not m:
            continue
        nome = m.group(2)
        vistos[nome] = vistos.get(nome, 0) + 1
        chave = f"widget:{nome}" + (f"-{vistos[nome]}" if vistos[nome] > 1 else "")
        onde = _funcao_do_widget(nome)
        res[chave] = (i + 1, f"{ln.strip()}\n{m.group(1)}" + (f"\n# calculado por {onde}" if onde else ""))
    return res


def onde_calcula(fontes: dict, chave: str):
    """(linha, código) que calcula uma chave da razão, ou (None, "").

    Uma chave colada com nome montado pode casar com mais de um padrão: ganha o nome
    exato, depois o padrão com mais caracteres fixos."""
    if chave.startswith("celula:"):
        return fontes.get(chave.split(".")[0], (None, ""))
    if chave.startswith("widget:"):
        return fontes.get(chave, (None, ""))
    candidatos = [(p, l, c) for p, l, c in fontes.get("__glue__", []) if re.fullmatch(p, chave)]
    if not candidatos:
        return None, ""
    exatas = [(l, c) for p, l, c in candidatos if p == re.escape(chave)]
    if exatas:
        return exatas[0]
    _, l, c = max(candidatos, key=lambda t: especificidade(t[0]))
    return l, c


def _dobra(texto: str, classe: str, linhas=4) -> str:
    """Um <pre>; se o texto é longo, recolhido num <details> com a 1ª linha à vista."""
    e = html_mod.escape
    pre = f'<pre class="{classe}">{e(texto)}</pre>'
    if texto.count("\n") >= linhas:
        primeira = texto.splitlines()[0]
        return f"<details><summary><code>{e(primeira[:60])}</code> …</summary>{pre}</details>"
    return pre


SEM_CODIGO = "(código não encontrado)"


def _tipo(chave: str, valor: str) -> str:
    """Em palavras de estudante: onde o valor aparece na página."""
    if chave.startswith("celula:"):
        return "saída de código"
    if chave.startswith("widget:"):
        return "widget, antes de mexer"
    if valor.startswith("(descrição:"):
        return "diagrama"
    if valor == FIGURA:
        return "figura"
    return "no texto"


def tabela_html(razao: dict, raiz: Path, link) -> str:
    """A tabela da página para instrutores (HTML cru, com uma caixa de filtro)."""
    e = html_mod.escape
    linhas, total = [], 0
    for pag, itens in razao.items():
        md = raiz / (pag + ".md")
        try:
            fontes = codigo_das_chaves(md) if md.exists() else {}
        except Exception:  # uma página quebrada não derruba esta
            fontes = {}
        for chave, valor in itens.items():
            total += 1
            lin, cod = onde_calcula(fontes, chave)
            ref = f"{pag}.md:{lin}" if lin else f"{pag}.md"
            tipo = _tipo(chave, valor)
            codigo = (_dobra(cod, "razao-codigo", 3) if cod
                      else f'<br><em class="razao-sem-codigo">{SEM_CODIGO}</em>')
            linhas.append(
                "<tr>"
                f'<td><a href="{e(link(pag))}">{e(pag.split("/")[-1])}</a><br>'
                f'<code>{e(chave)}</code> <small>({tipo})</small></td>'
                f"<td>{_dobra(valor, 'razao-valor')}</td>"
                f'<td><small><code>{e(ref)}</code></small>{codigo}</td>'
                "</tr>"
            )
    cab = "<tr><th>onde aparece</th><th>o que o leitor vê</th><th>código que o calcula</th></tr>"
    # Sem a classe full-width do tema: numa página sem subtítulos ela quebra o JS do tema
    # (sphinx-book-theme procura a barra lateral secundária, que não existe). A tabela usa a
    # largura do texto, com colunas fixas, e rola para o lado numa tela estreita.
    return f"""
<div class="razao">
<p><label for="razao-filtro">Filtrar:</label>
<input type="search" id="razao-filtro" placeholder="página, chave, valor ou código" autocomplete="off">
<span id="razao-conta">{total} números</span></p>
<div class="razao-rolagem"><table class="table razao-tabela" id="razao-tabela">
<thead>{cab}</thead>
<tbody>
{chr(10).join(linhas)}
</tbody></table></div>
</div>
<style>
.razao-rolagem {{ overflow-x: auto; }}
.razao-tabela {{ min-width: 34em; width: 100%; table-layout: fixed; }}
.razao-tabela th:nth-child(1) {{ width: 24%; }}
.razao-tabela th:nth-child(2) {{ width: 34%; }}
.razao-tabela td {{ vertical-align: top; font-size: 0.85em; overflow-wrap: anywhere; }}
.razao-tabela pre {{ margin: 0.25em 0 0; padding: 0.3em 0.5em; font-size: 0.95em;
  white-space: pre-wrap; word-break: break-word; max-width: 38em; }}
.razao-tabela details summary {{ cursor: pointer; }}
#razao-filtro {{ width: min(24em, 100%); }}
</style>
<script>
(function () {{
  var caixa = document.getElementById("razao-filtro");
  var linhas = document.querySelectorAll("#razao-tabela tbody tr");
  var conta = document.getElementById("razao-conta");
  caixa.addEventListener("input", function () {{
    var q = caixa.value.toLowerCase().trim(), n = 0;
    linhas.forEach(function (tr) {{
      var ok = !q || tr.textContent.toLowerCase().indexOf(q) >= 0;
      tr.style.display = ok ? "" : "none";
      if (ok) n++;
    }});
    conta.textContent = n + (n === 1 ? " número" : " números");
  }});
}})();
</script>
"""


def setup(app):
    from docutils import nodes
    from sphinx.util.docutils import SphinxDirective

    class RazaoDirective(SphinxDirective):
        """```{razao}``` : a tabela de todos os números do livro (do lock + fontes)."""
        has_content = False

        def run(self):
            env = self.env
            raiz = Path(env.srcdir)
            lock = raiz / LOCK.relative_to(RAIZ)
            env.note_dependency(str(lock))
            razao = ler_lock(lock)
            razao.pop(PAGINA_RAZAO, None)
            for pag in razao:
                md = raiz / (pag + ".md")
                if md.exists():
                    env.note_dependency(str(md))
            aqui = env.docname

            def link(pag):
                try:
                    return env.app.builder.get_relative_uri(aqui, pag)
                except Exception:
                    return "#"

            return [nodes.raw("", tabela_html(razao, raiz, link), format="html")]

    app.add_directive("razao", RazaoDirective)
    return {"parallel_read_safe": True, "parallel_write_safe": True}


# ---------------------------------------------------------------------------
# Linha de comando (o Makefile chama)
# ---------------------------------------------------------------------------
def main(argv=None):
    ap = argparse.ArgumentParser(description="A razão de números do livro.")
    ap.add_argument("acao", choices=["gerar", "verificar", "aceitar"])
    ap.add_argument("build", nargs="?", default="_build", help="a pasta _build do Jupyter Book")
    ap.add_argument("--lock", default=str(LOCK), help="o lock (padrão: book/numeros.lock.json)")
    ap.add_argument("--parcial", action="store_true",
                    help="verificar: só as páginas que este build executou")
    a = ap.parse_args(argv)
    build, lock = Path(a.build), Path(a.lock)
    if a.acao == "gerar":
        problemas = []
        razao = coletar(build, verboso=True, problemas=problemas)
        (build / NOME).write_text(serializa(razao), encoding="utf-8")
        n = sum(len(v) for v in razao.values())
        print(f"Razão: {n} números de {len(razao)} páginas em {build / NOME}")
        if problemas:
            (build / NOME).unlink()      # nada de razão quebrada para o `aceitar`
            print(f"{len(problemas)} valores não podem entrar na razão:")
            for p in problemas:
                print("  ! " + p)
            return 1
        return 0
    if a.acao == "aceitar":
        fonte = build / NOME
        if not fonte.exists():
            sys.exit(f"Falta {fonte}: rode `razao.py gerar {build}` antes.")
        velho = ler_lock(lock)
        novo = json.loads(fonte.read_text(encoding="utf-8"))
        ruins = [f"{pag} · {k}: {', '.join(controles(v, saida=k.startswith('celula:')))}"
                 for pag, itens in novo.items() for k, v in itens.items()
                 if controles(v, saida=k.startswith("celula:"))]
        if ruins:
            print("Caracteres de controle na razão; o lock não foi mudado:")
            for ln in ruins:
                print("  ! " + ln)
            return 1
        mudou = diferencas(velho, novo)
        lock.write_text(serializa(novo), encoding="utf-8")
        print(f"{lock} atualizado ({len(mudou)} mudanças):")
        for ln in mudou:
            print("  " + ln)
        return 0
    linhas = verificar(build, lock, a.parcial)
    if not linhas:
        print(f"Razão confere com {lock.name}.")
        return 0
    ruins = sum(ln.startswith("! ") for ln in linhas)
    if ruins:
        print(f"{ruins} valores não podem entrar na razão (caractere de controle):")
    if len(linhas) > ruins:
        print(f"{len(linhas) - ruins} números mudaram em relação a {lock}:")
    for ln in linhas:
        print("  " + ln)
    print("Se a mudança é de propósito: `make lock` e revise o diff do lock no commit.")
    return 1


if __name__ == "__main__":
    sys.exit(main())

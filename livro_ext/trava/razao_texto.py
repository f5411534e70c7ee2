"""A razão, a etapa do meio: de cada saída, glue e widget ao texto que o leitor vê (funções puras;
a regra do que entra está no CONTRIBUINDO.md, "Verificar")."""
from __future__ import annotations

import ast
import re
import unicodedata
from html.parser import HTMLParser

from ..widgets import CLASSE_WIDGET, vezes
from .razao_codigo import Varredor, chaves_glue_no_codigo

FIGURA = "(figura)"


def texto(v):
    return "".join(v) if isinstance(v, list) else str(v)


# O texto que o leitor vê num pedaço de HTML (widgets, diagramas em SVG, saídas em HTML), nunca o estilo.
_BLOCOS = {
    "address", "article", "aside", "blockquote", "br", "caption", "dd", "details", "div", "dl",
    "dt", "fieldset", "figcaption", "figure", "footer", "form", "h1", "h2", "h3", "h4", "h5", "h6",
    "header", "hr", "legend", "li", "main", "nav", "ol", "p", "pre", "section", "summary", "table",
    "tbody", "tfoot", "thead", "tr", "ul",
    "svg", "text", "title", "desc",                     # SVG: cada rótulo numa linha
}
_CELULAS = {"td", "th"}
_COLADOS = {"tspan"}                                    # SVG: o índice de W_U, colado à letra
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
        elif tag not in _COLADOS:
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
            elif t not in _COLADOS:
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


def widgets_no_html(h: str) -> dict:
    """{"widget:nome": texto visível} de cada widget de uma página HTML.

    Só depende da classe do contêiner (`livro-widget`) e do texto que o leitor vê; o nome
    vem de `data-widget` (ou do id). Dois widgets com o mesmo nome: `nome`, `nome-2`, ...
    """
    p = _TextoVisivel(CLASSE_WIDGET)
    p.feed(h)
    p.close()
    nomes = [attrs.get("data-widget") or attrs.get("id") or str(n) for n, (attrs, _) in enumerate(p.pecas, 1)]
    return {chave_do_widget(nome, vez): _linhas_visiveis(pedacos)
            for nome, vez, (_, pedacos) in zip(nomes, vezes(nomes), p.pecas)}


def chave_do_widget(nome: str, vez: int = 1) -> str:
    """`widget:NOME`, e `widget:NOME-2` para o 2º igual: o sufixo do id (api.id_do_widget), o nome como
    está (`widget:exercicio:x`). Importa a api aqui: a trava rápida troca o brinquedo depois."""
    from livro.widgets.api import id_do_widget

    return f"widget:{nome}" + id_do_widget(nome, vez).removeprefix(id_do_widget(nome))


def _latex(s: str) -> str:
    s = s.strip()
    cerca = next((c for c in ("$$", "$") if s.startswith(c) and s.endswith(c)), "")
    s = s[len(cerca):len(s) - len(cerca)]
    return s.strip().removeprefix(r"\displaystyle").strip()


def _limpa(s: str) -> str:
    return "\n".join(ln.rstrip() for ln in s.strip("\n").splitlines())


_FLOAT_LONGO = re.compile(r"(?<![\w.])-?\d+\.\d{10,}(?:e[-+]?\d+)?(?![\w.])")


def floats_curtos(s: str) -> str:
    """repr de float com 17 dígitos -> 12 significativos (a libm de outra máquina
    pode mudar o último dígito; 12 dígitos não piscam)."""
    return _FLOAT_LONGO.sub(lambda m: repr(float(format(float(m.group()), ".12g"))), s)


def _literal(t: str) -> str:
    """O texto de um repr (a string colada, sem as aspas)."""
    try:
        return str(ast.literal_eval(t))
    except (SyntaxError, ValueError):
        return t


# O texto de cada tipo MIME; a ordem de preferência de cada um (o valor colado, a saída de célula).
_MIMES = {"text/latex": _latex, "text/markdown": _limpa, "text/html": _html_para_texto,
          "text/plain": _limpa}
_ORDEM_GLUE = ("text/latex", "text/markdown", "text/html")
_ORDEM_SAIDA = ("text/html", "text/markdown", "text/latex", "text/plain")


def valor_glue(data: dict) -> str:
    """O valor colado como o leitor o vê (string já formatada, LaTeX ou figura)."""
    mime = next((m for m in _ORDEM_GLUE if m in data), None)
    if mime:
        return _MIMES[mime](texto(data[mime]))
    if any(k.startswith("image/") for k in data):
        return FIGURA
    return _limpa(_literal(texto(data["text/plain"]))) if "text/plain" in data else ""


def valor_saida(out: dict) -> str | None:
    """O texto que uma saída de célula mostra, ou None se não é texto para o leitor."""
    if out.get("output_type") == "stream":
        return _limpa(texto(out.get("text", ""))) if out.get("name") == "stdout" else None
    data = out.get("data", {}) if out.get("output_type") in ("execute_result", "display_data") else {}
    if any(k.startswith(("image/", "application/vnd.jupyter.widget", "application/javascript")) for k in data):
        return None
    mime = next((m for m in _ORDEM_SAIDA if m in data), None)
    return _MIMES[mime](texto(data[mime])) if mime else None


# ---------------------------------------------------------------------------
# A regra do que entra (ver o docstring de razao.py)
# ---------------------------------------------------------------------------
TAG_FORA = "nao-travar"
TAG_CONSTANTE = "constante"
TAGS_INVISIVEIS = {"remove-cell", "remove-output"}

# Saídas que mudam a cada execução: nunca são números do livro.
VOLATEIS = [
    re.compile(r"\bat 0x[0-9a-fA-F]{4,}"),          # <objeto at 0x7f…>
    re.compile(r"\b0x[0-9a-fA-F]{8,}\b"),           # endereços soltos
    re.compile(r"Wall time|CPU times|per loop|\bit/s\b|s/it\b"),
]


# Caracteres de controle num valor colado são quase sempre um "\t" ou "\f" de LaTeX numa
# string sem r"": "\times" vira TAB + "imes". O \n é o único permitido (quebra de linha).
_CONTROLE_COLADO = re.compile(r"[\x00-\x09\x0b-\x1f\x7f-\x9f]")
_CONTROLE_SAIDA = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")      # a saída pode ter TAB
# ... e um "\n" de LaTeX perdido: "\neq" numa string sem r"" vira quebra de linha + "eq".
_LATEX_PERDIDO = re.compile(r"\n(?:eq|abla|eg|ewline|onumber|olimits|otin|leq|geq|mid|parallel|subseteq)"
                            r"(?![a-zA-Z])")


# Números em notação científica: "5,0 · 10⁻¹⁶", "10⁻¹⁶", "5{,}0 \\cdot 10^{-16}", "2.2e-16".
_SOBRE = str.maketrans("⁰¹²³⁴⁵⁶⁷⁸⁹⁻", "0123456789-")
_CIENT = re.compile(
    r"(?:(?P<m1>\d+(?:[.,]\d+)?)\s*[·×]\s*)?10(?P<e1>⁻[⁰¹²³⁴⁵⁶⁷⁸⁹]+)"
    r"|(?:(?P<m2>\d+(?:\{,\}\d+|[.,]\d+)?)\s*\\(?:cdot|times)\s*)?10\^\{?(?P<e2>-\d+)\}?"
    r"|(?<![\w.])(?P<m3>\d+(?:\.\d+)?)[eE](?P<e3>-\d+)\b")
LIMITE_RESIDUO = 1e-12


def residuos(valor: str) -> list[str]:
    """Os números de `valor` em notação científica abaixo de 10⁻¹² (cara de resíduo de
    arredondamento), como aparecem no texto.

    >>> residuos("difere em 5,0 · 10⁻¹⁶ e ε = 10⁻⁵")
    ['5,0 · 10⁻¹⁶']
    >>> residuos("erro 2.220446049250313e-16; tol 10^{-12}")
    ['2.220446049250313e-16']
    """
    achados = []
    for m in _CIENT.finditer(valor):
        for i in "123":
            if m.group("e" + i) is None:
                continue
            mant = (m.group("m" + i) or "1").replace("{,}", ".").replace(",", ".")
            exp = int(m.group("e" + i).translate(_SOBRE))
            if float(mant) * 10.0 ** exp < LIMITE_RESIDUO:
                achados.append(m.group(0))
    return achados


def _problemas_de_residuo(chave: str, valor: str) -> list[str]:
    ruins = residuos(valor)
    if not ruins:
        return []
    return [f"{chave}: parece um resíduo de arredondamento ({', '.join(ruins)} em {curto(valor, 80)}); "
            f"o valor depende da máquina: imprima um limite, ou, se é uma constante do setup "
            f"(ε, tolerância), cole-o numa célula com a tag `{TAG_CONSTANTE}`"]


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
            bruto = texto(data[mime])
            achados += controles(bruto)
            if mime == "text/latex":
                achados += ["\\n seguido de um comando LaTeX (um \\neq, \\nabla... sem r\"\")"
                            for _ in _LATEX_PERDIDO.findall(bruto)[:1]]
    valor = valor_glue(data)
    achados += controles(valor)
    if not achados:
        return []
    return [f"{chave}: caractere de controle no valor colado: {', '.join(sorted(set(achados)))} "
            f"em {curto(repr(valor), 80)} (use uma string r\"...\" no LaTeX)"]


def _saidas(outputs: list) -> list:
    """As saídas de uma célula, com pedaços seguidos do mesmo stream juntados: sob carga o kernel
    pode mandar um print em dois pedaços, e a razão não pode depender disso."""
    res = []
    for out in outputs:
        ant = res[-1] if res else {}
        if (out.get("output_type") == "stream" and ant.get("output_type") == "stream"
                and ant.get("name") == out.get("name")):
            res[-1] = dict(ant, text=texto(ant.get("text", "")) + texto(out.get("text", "")))
        else:
            res.append(out)
    return res


def itens_do_notebook(nb: dict, glue: dict) -> tuple[dict, list, list]:
    """Um notebook executado (dict) e seus glue -> ({chave: valor}, [avisos], [problemas])."""
    itens, avisos, problemas, fora, constantes = {}, [], [], [], []
    varredor = Varredor()
    n_codigo = 0
    for cell in nb.get("cells", []):
        if cell.get("cell_type") != "code":
            continue
        n_codigo += 1
        tags = set(cell.get("metadata", {}).get("tags", []) or [])
        chaves = chaves_glue_no_codigo(texto(cell.get("source", "")), varredor)
        if TAG_FORA in tags:
            fora += chaves
            continue
        constante = TAG_CONSTANTE in tags
        if constante:
            constantes += chaves
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
            if not constante:
                problemas += _problemas_de_residuo(chave, v)
            itens[chave] = floats_curtos(v)
    for chave, out in glue.items():
        if any(re.fullmatch(p, chave) for p in fora):
            continue
        data = out.get("data", {})
        problemas += _problemas_do_glue(chave, data)
        itens[chave] = valor_glue(data)
        if not any(re.fullmatch(p, chave) for p in constantes):
            problemas += _problemas_de_residuo(chave, itens[chave])
    return itens, avisos, problemas


def itens_dos_widgets(h: str) -> tuple[dict, list]:
    """O HTML de uma página (ou só dos seus widgets) -> ({chave: texto visível}, [problemas])."""
    itens = widgets_no_html(h)
    return itens, [p for chave, v in itens.items() for p in _problemas_de_residuo(chave, v)]


def curto(s: str, n=140) -> str:
    """Um valor numa linha só (⏎ no lugar da quebra, caractere de controle visível), cortado em n."""
    s = s.replace("\n", " ⏎ ")
    s = _CONTROLE_COLADO.sub(lambda m: f"\\x{ord(m.group()):02x}", s)   # um TAB fica visível
    return s if len(s) <= n else s[: n - 1] + "…"

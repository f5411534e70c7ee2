"""A razão: o texto que o leitor vê num valor colado, numa saída de célula ou num widget."""
from __future__ import annotations

import ast
import re
from html.parser import HTMLParser
from pathlib import Path

RAIZ = Path(__file__).resolve().parents[2]
FIGURA = "(figura)"


def texto(v):
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
    itens, vistos = {}, {}
    for n, (attrs, pedacos) in enumerate(p.pecas, 1):
        nome = attrs.get("data-widget") or attrs.get("id") or str(n)
        vistos[nome] = vistos.get(nome, 0) + 1
        itens[chave_do_widget(nome, vistos[nome])] = _linhas_visiveis(pedacos)
    return itens


def chave_do_widget(nome: str, vez: int = 1) -> str:
    """A chave de um widget na razão: `widget:NOME`, e `widget:NOME-2` para o 2º com o mesmo nome
    na página (o mesmo sufixo do id, livro.widgets.api.id_do_widget)."""
    return f"widget:{nome}" + (f"-{vez}" if vez > 1 else "")


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


def floats_curtos(s: str) -> str:
    """repr de float com 17 dígitos -> 12 significativos (a libm de outra máquina
    pode mudar o último dígito; 12 dígitos não piscam)."""
    return _FLOAT_LONGO.sub(lambda m: repr(float(format(float(m.group()), ".12g"))), s)


def valor_glue(data: dict) -> str:
    """O valor colado como o leitor o vê (string já formatada, LaTeX ou figura)."""
    if "text/latex" in data:
        return _latex(texto(data["text/latex"]))
    if "text/markdown" in data:
        return _limpa(texto(data["text/markdown"]))
    if "text/html" in data:
        return _html_para_texto(texto(data["text/html"]))
    if any(k.startswith("image/") for k in data):
        return FIGURA
    if "text/plain" in data:
        t = texto(data["text/plain"])
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
        return _limpa(texto(out.get("text", ""))) if out.get("name") == "stdout" else None
    if tipo not in ("execute_result", "display_data"):
        return None
    data = out.get("data", {})
    if any(k.startswith(("image/", "application/vnd.jupyter.widget", "application/javascript"))
           for k in data):
        return None
    if "text/html" in data:
        return _html_para_texto(texto(data["text/html"]))
    if "text/markdown" in data:
        return _limpa(texto(data["text/markdown"]))
    if "text/latex" in data:
        return _latex(texto(data["text/latex"]))
    if "text/plain" in data:
        return _limpa(texto(data["text/plain"]))
    return None

"""MyST -> Markdown comum, para os notebooks que o livro publica (ver notebooks.py).

O glue resolvido no texto (valores como texto, matemática como $…$, figuras como imagens
embutidas no próprio Markdown, em `data:`),
avisos como citações, `dropdown` como <details>, links entre páginas apontando o site.
Lê a página com o leitor de MyST do livro (`myst.py`).
"""
from __future__ import annotations

import ast
import base64
import json
import posixpath
import re
from pathlib import Path
from urllib.parse import urljoin

from ..execucao import myst

TITULOS = {
    "note": "Nota", "tip": "Dica", "hint": "Dica", "important": "Importante",
    "warning": "Atenção", "attention": "Atenção", "caution": "Cuidado",
    "danger": "Perigo", "error": "Erro", "seealso": "Veja também",
}
# diretivas cujo corpo é código: ficam como bloco de código
CODIGO = {"code-block", "code", "sourcecode"}
# diretivas que somem do notebook (não têm sentido fora do site)
SOMEM = {"toctree", "tableofcontents", "include", "literalinclude", "only", "index",
         "eval-rst", "bibliography"}


class ErroNotebook(Exception):
    pass


# ---------------------------------------------------------------------------
# Valores colados
# ---------------------------------------------------------------------------
def _t(v):
    return "".join(v) if isinstance(v, list) else str(v)


def texto_plano(plain: str, fmt: str = "") -> str:
    """O mesmo que o {glue:text} faz: literal_eval e depois format(valor, fmt)."""
    try:
        valor = ast.literal_eval(plain)
    except (SyntaxError, ValueError):
        valor = plain
    if not fmt:
        return str(valor)
    tipo = fmt[-1]
    if tipo == "s":
        valor = str(valor)
    elif tipo in "bcdoxX":
        valor = int(valor)
    elif tipo in "eEfFgGn%":
        valor = float(valor)
    return format(valor, fmt)


def latex_nu(s: str) -> str:
    s = s.strip()
    for a, b in (("$$", "$$"), ("$", "$"), (r"\[", r"\]"), (r"\(", r"\)")):
        if s.startswith(a) and s.endswith(b) and len(s) >= len(a) + len(b):
            s = s[len(a):-len(b)].strip()
            break
    if s.startswith(r"\displaystyle"):
        s = s[len(r"\displaystyle"):].strip()
    return s


def texto_alternativo(alt: str) -> str:
    """O texto alternativo de uma imagem no Markdown, sem `[`, `]` e `\\` (fechariam o link)."""
    return re.sub(r"[\[\]\\]", "", alt)


class Colados:
    """Lê os glue.json do build (a página e, sob demanda, as outras)."""

    def __init__(self, pasta_exec: Path, docname: str):
        self.pasta = Path(pasta_exec)
        self.doc = docname
        self.cache = {}

    def _dados(self, doc):
        if doc not in self.cache:
            p = self.pasta / (doc + ".glue.json")
            self.cache[doc] = json.loads(p.read_text(encoding="utf-8")) if p.exists() else {}
        return self.cache[doc]

    def pega(self, ref: str, doc: str | None = None) -> dict:
        """'chave' ou 'pagina.md::chave' -> o dicionário `data` do glue."""
        if "::" in ref:
            rel, chave = ref.split("::", 1)
            base = posixpath.dirname(self.doc)
            doc = posixpath.normpath(posixpath.join(base, rel))
            doc = re.sub(r"\.(md|ipynb)$", "", doc)
        else:
            chave = ref
        doc = doc or self.doc
        dados = self._dados(doc)
        if chave not in dados:
            raise ErroNotebook(f"glue {chave!r} não existe em {doc}")
        return dados[chave].get("data", {})

    def imagem(self, data: dict, alt: str = "") -> str | None:
        """A figura como imagem `data:` no Markdown. Anexos da célula (`attachment:`) o Colab
        não mostra; `data:` ele mostra (é como ele mesmo guarda uma imagem colada), e o
        Jupyter e o VS Code também. O PNG primeiro: o Colab não mostra SVG embutido."""
        for mime in ("image/png", "image/jpeg", "image/svg+xml"):
            if mime in data:
                conteudo = _t(data[mime])
                if mime == "image/svg+xml":
                    conteudo = base64.b64encode(conteudo.encode()).decode()
                b64 = re.sub(r"\s", "", conteudo)
                return f"![{texto_alternativo(alt)}](data:{mime};base64,{b64})"
        return None


# ---------------------------------------------------------------------------
# Markdown MyST -> Markdown do Jupyter
# ---------------------------------------------------------------------------


class Conversor:
    def __init__(self, colados: Colados, url_pagina, url_site: str, substituicoes=None):
        self.c = colados
        self.subs = dict(substituicoes or {})
        self.url_pagina = url_pagina  # docname -> URL absoluta da página no site
        self.url_site = url_site.rstrip("/") + "/" if url_site else ""
        self.avisos = []

    # -- papéis (inline) ----------------------------------------------------
    _PAPEL = re.compile(r"\{(?P<nome>[\w:.+-]*)\}(?P<ticks>`+)")

    def substitui(self, s: str) -> str:
        """As substituições do MyST, `{{ chave }}` ou uma expressão Jinja, como no site."""
        if "{{" not in s:
            return s
        import jinja2

        try:
            return jinja2.Environment(undefined=jinja2.StrictUndefined).from_string(s).render(**self.subs)
        except jinja2.TemplateError as e:
            self.avisos.append(f"substituição que não se resolve ({e}): {s.strip()[:80]}")
            return s

    def inline(self, s: str) -> str:
        """Resolve os papéis {nome}`conteúdo` de uma linha; código `assim` fica intocado."""
        s = self.substitui(s)
        out, i = [], 0
        while i < len(s):
            m = self._PAPEL.match(s, i) if s[i] == "{" else None
            if s[i] == "`" or m:
                ticks = m.group("ticks") if m else re.match(r"`+", s[i:]).group()
                ini = m.end() if m else i + len(ticks)
                f = re.compile(r"(?<!`)" + ticks + r"(?!`)").search(s, ini)
                if not f:  # sem fechamento: é texto comum
                    out.append(s[i:ini])
                    i = ini
                    continue
                conteudo = s[ini:f.start()]
                if m:
                    out.append(self.papel(m.group("nome"), conteudo.strip() if len(ticks) > 1 else conteudo))
                else:
                    out.append(s[i:f.end()])
                i = f.end()
                continue
            out.append(s[i])
            i += 1
        return self.links("".join(out))

    def papel(self, nome: str, conteudo: str) -> str:
        if nome in ("glue", "glue:", "glue:any", "glue:text", "glue:md"):
            return self.cola_inline(nome, conteudo)
        if nome == "math":
            return f"${conteudo}$"
        if nome in ("sub", "subscript"):
            return f"<sub>{conteudo}</sub>"
        if nome in ("sup", "superscript"):
            return f"<sup>{conteudo}</sup>"
        if nome == "kbd":
            return f"<kbd>{conteudo}</kbd>"
        texto, alvo = conteudo, conteudo
        m = re.match(r"^(.*?)\s*<([^<>]+)>$", conteudo, re.S)
        if m and m.group(1):
            texto, alvo = m.group(1), m.group(2)
        if nome == "doc":
            doc = posixpath.normpath(posixpath.join(posixpath.dirname(self.c.doc), alvo))
            doc = re.sub(r"\.(md|ipynb)$", "", doc.lstrip("/"))
            rotulo = texto if (m and m.group(1)) else doc.split("/")[-1]
            return f"[{rotulo}]({self.url_pagina(doc)})"
        if nome == "eq":
            return f"({texto})"
        if nome == "abbr":
            return re.sub(r"\s*\(.*\)$", "", texto)
        if nome == "term":
            return texto
        return texto  # ref, numref, download, cite...: o texto basta

    def cola_inline(self, nome, conteudo):
        chave, fmt = conteudo, ""
        if nome == "glue:text":  # como o myst-nb: o que vem depois do último ':' é o formato
            partes = conteudo.rsplit(":", 1)
            chave, fmt = (partes[0], partes[1]) if len(partes) == 2 else (conteudo, "s")
        try:
            data = self.c.pega(chave)
        except ErroNotebook as e:
            self.avisos.append(str(e))
            return f"**[{chave}?]**"
        if nome == "glue:text":
            return texto_plano(_t(data.get("text/plain", "")), fmt)
        if nome == "glue:md":
            return self.links(_t(data.get("text/markdown", "")))
        return self.valor_any(chave, data, inline=True)

    def valor_any(self, chave, data, inline):
        if "text/latex" in data:
            tex = latex_nu(_t(data["text/latex"]))
            return f"${tex}$" if inline else f"$$\n{tex}\n$$"
        img = self.c.imagem(data)
        if img:
            return img
        if "text/markdown" in data:  # um Markdown colado (uma tabela) também liga às páginas
            return self.links(_t(data["text/markdown"]))
        if "text/html" in data:  # (o navegador dos passos: links para as páginas)
            return self.links(_t(data["text/html"]))
        return texto_plano(_t(data.get("text/plain", "")))

    def endereco(self, alvo: str) -> str:
        """Um endereço relativo da página (outra.md#x, #x, bloco.html, ../livro.pdf) -> o endereço
        no site: o notebook baixado não tem as páginas nem os arquivos ao lado dele."""
        if re.match(r"^[a-z][\w+.-]*:", alvo) or alvo.startswith("//"):
            return alvo
        caminho, _, ancora = alvo.partition("#")
        ancora = "#" + ancora if ancora else ""
        if not caminho:
            return self.url_pagina(self.c.doc) + ancora
        if re.search(r"\.(md|ipynb)$", caminho):
            doc = posixpath.normpath(posixpath.join(posixpath.dirname(self.c.doc), caminho))
            return self.url_pagina(re.sub(r"\.(md|ipynb)$", "", doc)) + ancora
        return urljoin(self.url_pagina(self.c.doc), caminho) + ancora

    def links(self, s: str) -> str:
        """[texto](outra.md#ancora) e <a href="bloco.html"> -> o endereço no site."""
        s = re.sub(r"(?<!!)\[([^\]]*)\]\(([^)\s]+)\)", lambda m: f"[{m.group(1)}]({self.endereco(m.group(2))})", s)
        return re.sub(r"""(<a\b[^>]*?\bhref=)(["'])([^"']*)\2""",
                      lambda m: f"{m.group(1)}{m.group(2)}{self.endereco(m.group(3))}{m.group(2)}", s)

    # -- blocos --------------------------------------------------------------
    def markdown(self, texto: str) -> str:
        out = self.blocos(texto.split("\n"))
        s = "\n".join(out)
        return re.sub(r"\n{3,}", "\n\n", s).strip("\n")

    def blocos(self, linhas: list[str]) -> list[str]:
        out = []
        pulo = -1  # linhas já consumidas por um bloco de matemática $$ … $$
        for p in myst.pedacos(linhas):
            if isinstance(p, myst.Bloco):
                out += self.diretiva(p.cerca, p.info, p.corpo)
                continue
            i, ln = p
            if i <= pulo:
                continue
            if re.match(r"^\s*\([\w:.\-]+\)=\s*$", ln) or ln.strip() == "+++" or re.match(r"^%", ln):
                continue  # alvo de referência (label)=, quebra de bloco, comentário MyST
            if ln.strip().startswith("$$"):
                # bloco de matemática: mantém, tira o rótulo "$$ (rotulo)"
                bloco = [re.sub(r"^(\s*\$\$)\s*\([^)]*\)\s*$", r"\1", ln)]
                if not (ln.strip().endswith("$$") and len(ln.strip()) > 2 and ln.strip() != "$$"):
                    j = i + 1
                    while j < len(linhas) and "$$" not in linhas[j]:
                        bloco.append(linhas[j])
                        j += 1
                    if j < len(linhas):
                        bloco.append(re.sub(r"\$\$\s*\([^)]*\)\s*$", "$$", linhas[j]))
                    pulo = j
                else:
                    bloco = [re.sub(r"\$\$\s*\([^)]*\)\s*$", "$$", ln)]
                out += bloco
                continue
            out.append(self.inline(ln))
        return out

    @staticmethod
    def opcoes(corpo: list[str]):
        """Separa as opções (:chave: valor, ou bloco --- yaml ---) do conteúdo."""
        op, conteudo, _ = myst.opcoes(corpo)
        return op, conteudo

    def diretiva(self, cerca: str, info: str, corpo: list[str]) -> list[str]:
        md = myst.DIRETIVA.match(info)
        if not md:  # cerca comum: bloco de código, fica igual
            return [f"```{info}", *corpo, "```"]
        nome, arg = md.group("nome"), md.group("arg").strip()
        op, conteudo = self.opcoes(corpo)
        if nome in CODIGO:
            return [f"```{arg}", *conteudo, "```"]
        if nome in SOMEM:
            return []
        if nome in ("glue", "glue:", "glue:any", "glue:math", "glue:md", "glue:figure"):
            chave = arg
            try:
                data = self.c.pega(chave, None)
            except ErroNotebook as e:
                self.avisos.append(str(e))
                return [f"**[{chave}?]**"]
            if nome == "glue:math":
                return ["", "$$", latex_nu(_t(data.get("text/latex", ""))), "$$", ""]
            if nome == "glue:md":
                return ["", self.links(_t(data.get("text/markdown", ""))), ""]
            if nome == "glue:figure":
                legenda = " ".join(x.strip() for x in conteudo if x.strip())
                legenda = self.inline(legenda) if legenda else ""
                img = self.c.imagem(data, op.get("alt", ""))
                if not img:
                    img = self.valor_any(chave, data, inline=False)
                return ["", img, "", *( [f"*{legenda}*", ""] if legenda else [])]
            return ["", self.valor_any(chave, data, inline=False), ""]
        if nome == "math":
            return ["", "$$", *conteudo, "$$", ""]
        if nome == "widget":
            return ["", f"> **Widget interativo** (`{arg}`): ele roda no navegador, na "
                        f"[página do livro]({self.url_pagina(self.c.doc)}).", ""]
        if nome == "raw":
            return ["", *map(self.links, conteudo), ""] if "html" in arg else []
        if nome in ("figure", "image"):
            alvo = arg if re.match(r"^[a-z]+://", arg) else (
                self.url_site + posixpath.normpath(posixpath.join(posixpath.dirname(self.c.doc), arg)))
            legenda = " ".join(x.strip() for x in conteudo if x.strip())
            return ["", f"![{op.get('alt', legenda)}]({alvo})", *( ["", f"*{self.inline(legenda)}*"] if legenda else []), ""]
        dentro = self.blocos(conteudo)
        if nome == "dropdown" or "dropdown" in op.get("class", "") or "dropdown" in op.get("class_", ""):
            titulo = self.inline(arg) if arg else "Mostrar"
            return ["", f"<details><summary>{titulo}</summary>", "", *dentro, "", "</details>", ""]
        if nome in TITULOS or nome == "admonition":
            titulo = self.inline(arg) if (nome == "admonition" and arg) else TITULOS.get(nome, "Nota")
            if nome != "admonition" and arg:
                dentro = [self.inline(arg), ""] + dentro
            return ["", f"> **{titulo}**", ">", *[("> " + x) if x else ">" for x in dentro], ""]
        if nome in ("tab-item", "card", "grid-item-card", "exercise", "solution", "topic", "sidebar"):
            cab = [f"**{self.inline(arg)}**", ""] if arg else []
            return ["", *cab, *dentro, ""]
        return ["", *dentro, ""]  # tab-set, grid, container, div...: só o conteúdo

"""A página de números para instrutores: a diretiva ```{razao}``` (o lock, com o código de cada número)."""
from __future__ import annotations

import html as html_mod
import re
from pathlib import Path

from ..execucao import guardado, myst
from . import razao_codigo
from .razao import LOCK, PAGINA_RAZAO, RAIZ, ler_lock
from .razao_codigo import especificidade, widgets_no_fonte
from .razao_texto import FIGURA, chave_do_widget


def _funcao_do_widget(nome: str) -> str:
    """'lab/livro/widgets/MODULO.py:LINHA, função F' que calcula um widget (ou "")."""
    try:
        import inspect

        from livro.widgets import api as widgets_api

        f = widgets_api.funcoes(nome)[2]
        _, linha = inspect.getsourcelines(f)
        arquivo = Path(inspect.getsourcefile(f)).resolve().relative_to(RAIZ).as_posix()
        return f"{arquivo}:{linha}, função {f.__name__}"
    except Exception:
        return ""


def codigo_das_chaves(md: Path) -> dict:
    """Lê o fonte de uma página MyST -> {chave: (linha no .md, código)} para células e widgets,
    e em "__glue__" a lista [(padrão da chave, linha no .md, código)] de cada cola/glue."""
    texto = md.read_text(encoding="utf-8")
    linhas_md = texto.splitlines()
    res, padroes = _celulas_e_colas(texto)
    res["__glue__"] = padroes
    for i, nome, vez, cerca in widgets_no_fonte(texto):
        onde = _funcao_do_widget(nome)
        res[chave_do_widget(nome, vez)] = (i + 1, f"{linhas_md[i].strip()}\n{cerca}"
                                           + (f"\n# calculado por {onde}" if onde else ""))
    return res


def _celulas_e_colas(texto: str) -> tuple[dict, list]:
    """As células e as colas de uma página: ({celula:NN: (linha, código)}, [(padrão, linha, trecho)]).
    Guardadas (guardado.py) pelo hash do texto e do código que as calcula."""
    import json

    codigo = [Path(m.__file__).read_bytes() for m in (guardado, myst, razao_codigo)] + [Path(__file__).read_bytes()]
    k = guardado.chave("razão", texto, *codigo)
    feito = guardado.ler("razao", k)
    if feito is not None:
        res, padroes = json.loads(feito)
        return {c: tuple(v) for c, v in res.items()}, [tuple(p) for p in padroes]
    res, padroes = _varre(texto)
    guardado.guardar("razao", k, json.dumps([res, padroes], ensure_ascii=False).encode("utf-8"))
    return res, padroes


def _varre(texto: str) -> tuple[dict, list]:
    res, padroes = {}, []
    varredor = razao_codigo.Varredor()
    celulas = [p for p in myst.pedacos(texto.splitlines()) if isinstance(p, myst.Bloco) and p.nome == "code-cell"]
    for n, bloco in enumerate(celulas, 1):
        _, corpo, k = myst.opcoes(bloco.corpo)
        ini = bloco.inicio + 1 + k                          # a 1ª linha do código (0-based), sem as linhas vazias
        while corpo and not corpo[0].strip():
            corpo, ini = corpo[1:], ini + 1
        while corpo and not corpo[-1].strip():
            corpo = corpo[:-1]
        fonte = "\n".join(corpo)
        res[f"celula:{n:02d}"] = (ini + 1, fonte)
        for padrao, lin, st in varredor.celula(fonte):
            trecho = "\n".join(corpo[st[0] - 1: st[1]]) if st else (corpo[lin - 1] if 0 < lin <= len(corpo) else "")
            padroes.append((padrao, ini + lin, trecho))
    return res, padroes


def onde_calcula(fontes: dict, chave: str):
    """(linha, código) que calcula uma chave da razão, ou (None, ""). Entre os padrões que casam com
    uma chave colada ganha o nome exato, depois o mais específico."""
    if chave.startswith(("celula:", "widget:")):
        return fontes.get(chave.split(".")[0] if chave.startswith("celula:") else chave, (None, ""))
    candidatos = [(p, l, c) for p, l, c in fontes.get("__glue__", []) if re.fullmatch(p, chave)]
    if not candidatos:
        return None, ""
    _, l, c = max(candidatos, key=lambda t: (t[0] == re.escape(chave), especificidade(t[0])))
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
    # Sem a classe full-width do tema (numa página sem subtítulos ela quebra o JS do tema): a
    # largura do texto, com colunas fixas, e rolagem para o lado numa tela estreita.
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

    def _por_pagina(app, pagename, templatename, context, doctree):
        """O estilo e o filtro da tabela (book/_static/razao.*) só na página de números."""
        if pagename == PAGINA_RAZAO:
            app.add_css_file("razao.css")
            app.add_js_file("razao.js", defer="defer")

    app.add_directive("razao", RazaoDirective)
    app.connect("html-page-context", _por_pagina)

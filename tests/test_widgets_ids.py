"""O id de cada widget na página sai de um lugar só: livro.widgets.api.id_do_widget.

A diretiva do build (livro_ext/widgets/widgets.py), a trava rápida (livro_ext/trava/rapido.py) e
a razão contam os widgets da página por nome numa função só (livro_ext.widgets.vezes) e chamam essa.
"""
import re

from docutils.core import publish_doctree
from docutils.parsers.rst import directives

from livro.widgets import api
from livro_ext.trava import razao_codigo, razao_texto
from livro_ext.widgets import CLASSE_WIDGET, vezes
from livro_ext.widgets.widgets import WidgetDirective

from conftest import RAIZ

FONTE = """Texto.

```{widget} tokens
```

:::{widget} embeddings
:::

```{widget} tokens
```
"""


def test_id_e_chave_do_widget():
    assert api.id_do_widget("tokens") == "widget-tokens"
    assert api.id_do_widget("tokens", 2) == "widget-tokens-2"
    assert razao_texto.chave_do_widget("tokens", 2) == "widget:tokens-2"
    # um exercício: o id troca o ":" por "-", a chave do lock guarda o nome
    assert api.id_do_widget("exercicio:tokens-1") == "widget-exercicio-tokens-1"
    assert razao_texto.chave_do_widget("exercicio:tokens-1") == "widget:exercicio:tokens-1"
    assert razao_texto.chave_do_widget("exercicio:tokens-1", 2) == "widget:exercicio:tokens-1-2"


def test_a_vez_de_cada_widget_conta_so_o_mesmo_nome():
    assert vezes(["tokens", "embeddings", "tokens", "tokens", "embeddings"]) == [1, 1, 2, 3, 2]
    # a contagem mora só em livro_ext.widgets.vezes
    contam = [arq.relative_to(RAIZ).as_posix() for arq in sorted((RAIZ / "livro_ext").rglob("*.py"))
              if re.search(r"vistos\[nome\] = vistos\.get\(nome, 0\) \+ 1|\.count\(nome\)", arq.read_text(encoding="utf-8"))]
    assert contam == ["livro_ext/widgets/__init__.py"]


def test_widgets_no_fonte_conta_por_nome():
    assert razao_codigo.widgets_no_fonte(FONTE) == [
        (2, "tokens", 1, "```"), (5, "embeddings", 1, ":::"), (8, "tokens", 2, "```")]


def test_a_diretiva_da_os_mesmos_ids_que_a_trava_rapida():
    directives.register_directive("widget", WidgetDirective)
    doc = publish_doctree(".. widget:: tokens\n\n.. widget:: embeddings\n\n.. widget:: tokens\n",
                          settings_overrides={"report_level": 5})
    ids = [re.search(r'class="livro-widget"[^>]* id="([^"]+)"', n.astext()).group(1)
           for n in doc.findall(lambda n: n.tagname == "raw")]
    rapida = [api.id_do_widget(nome, vez) for _, nome, vez, _ in razao_codigo.widgets_no_fonte(FONTE)]
    assert ids == rapida == ["widget-tokens", "widget-embeddings", "widget-tokens-2"]


def test_o_id_so_e_montado_em_livro_widgets_api():
    achados = []
    for pasta in ("livro_ext", "dev", "lab"):
        for arq in sorted((RAIZ / pasta).rglob("*.py")):
            for n, ln in enumerate(arq.read_text(encoding="utf-8").splitlines(), 1):
                if re.search(r"""f["']widget-\{""", ln):
                    achados.append(f"{arq.relative_to(RAIZ)}:{n}")
    assert [a.split(":")[0] for a in achados] == ["lab/livro/widgets/api.py"], achados


def test_partida_no_head_so_nas_paginas_com_widget_e_com_os_widgets_delas(build):
    """A partida antecipada (livro_ext/widgets/partida.js, embutida por livro_ext/widgets/widgets.py) vai no <head> das páginas com widget,
    com os nomes dos widgets daquela página, e no da abertura (sem widget, para baixar o runtime em
    tempo ocioso); as outras páginas não a têm. O registro do service worker vai em todas."""
    import json

    com = 0
    for html in sorted((build / "html" / "book").glob("*.html")):
        texto = html.read_text(encoding="utf-8")
        cabeca, _, corpo = texto.partition("</head>")
        assert 'register(raiz + "offline.js")' in cabeca, f"{html.name}: sem o registro do service worker"
        nomes = list(dict.fromkeys(re.findall(r'class="livro-widget" data-widget="([^"]+)"', corpo)))
        m = re.search(r"livroPartida = .*?livroAbrir\((\[.*?\]), inicio, \{ cedo \}\)", cabeca, re.S)
        if html.name == "index.html":
            assert not nomes and m and json.loads(m.group(1)) == [], "a abertura sem a partida que antecipa"
            assert "if (true) antecipar();" in cabeca
            continue
        assert "if (false) antecipar();" in cabeca or "livroPartida" not in texto, html.name
        if not nomes:
            assert "livroPartida" not in texto, html.name
            continue
        com += 1
        assert m, f"{html.name}: sem a partida no <head>"
        assert json.loads(m.group(1)) == nomes, html.name
        # antes das folhas de estilo (um <script> embutido depois delas espera que cheguem) e de
        # todo script; sem defer: roda enquanto o resto do HTML chega
        assert cabeca.index("livroPartida") < cabeca.index('rel="stylesheet"')
        assert cabeca.index("livroPartida") < cabeca.index("<script src=")
    assert com >= 9


def test_a_classe_e_a_chave_do_widget_saem_do_html_e_do_id_de_api():
    """A classe que a trava, a diretiva e o PDF procuram é a que livro.widgets.api escreve, e a
    chave da razão segue o id (widget-x-2 -> widget:x-2)."""
    for nome in api.WIDGETS:
        assert api.widget_html(nome, api.id_do_widget(nome)).startswith(f'<div class="{CLASSE_WIDGET}" ')
        for vez in (1, 2, 3):
            assert razao_texto.chave_do_widget(nome, vez) == api.id_do_widget(nome, vez).replace("widget-", "widget:", 1)
    assert razao_texto.chave_do_widget("tokens", 2) == "widget:tokens-2"


def test_o_css_usa_a_classe_de_livro_widgets_e_o_js_acha_os_widgets_pelo_data_widget():
    """A classe do contêiner mora em livro.widgets.CLASSE (o HTML e o build a importam). O CSS não
    tem como importá-la: toda classe terminada em "widget" nos CSS de book/_static tem de ser ela.
    O JavaScript nem a cita: acha os widgets por [data-widget], que só o contêiner tem."""
    classes = {c for css in sorted((RAIZ / "book" / "_static").rglob("*.css"))
               for c in re.findall(r"\.([\w-]*widget)\b", css.read_text(encoding="utf-8"))}
    assert classes == {CLASSE_WIDGET}
    citam = [arq.relative_to(RAIZ).as_posix() for pasta in ("book/_static", "livro_ext")
             for arq in sorted((RAIZ / pasta).rglob("*.*js")) if CLASSE_WIDGET in arq.read_text(encoding="utf-8")]
    assert citam == []

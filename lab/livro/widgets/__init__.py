"""Os widgets do livro: o mesmo código no build (a diretiva {widget}) e no navegador (Pyodide).

Só a biblioteca padrão e módulos de `livro` que também só a usam: o navegador recebe
exatamente o fecho de imports deste subpacote (ver `livro_ext.widgets.navegador`).
A porta é `livro.widgets.api` (`responder_json`, `widget_html`).
"""

"""Os widgets do livro: o mesmo código no build (a diretiva {widget}) e no navegador (Pyodide).

Só a biblioteca padrão e módulos de `livro` que também só a usam: o navegador recebe
exatamente o fecho de imports deste subpacote (ver `livro_ext.widgets.navegador`).
A porta é `livro.widgets.api` (`responder_json`, `widget_html`).
"""

# A classe do contêiner de todo widget (widget_html, exercicio.html): a única fonte. O build
# (livro_ext.widgets.CLASSE_WIDGET), a trava e o PDF acham os widgets por ela; o JavaScript os acha
# pelo atributo data-widget, e o CSS de book/_static é conferido contra ela (tests/test_widgets_ids.py).
CLASSE = "livro-widget"

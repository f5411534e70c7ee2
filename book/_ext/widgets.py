"""Diretiva {widget}: marca o lugar de um widget Pyodide numa página.

    ```{widget} tokens
    ```
"""
from docutils import nodes
from docutils.parsers.rst import Directive


class WidgetDirective(Directive):
    required_arguments = 1
    has_content = True

    def run(self):
        nome = self.arguments[0]
        html = (f'<div class="livro-widget" data-widget="{nome}">'
                f'<p class="livro-widget-aviso">Widget interativo: {nome} (em construção).</p></div>')
        return [nodes.raw("", html, format="html")]


def setup(app):
    app.add_directive("widget", WidgetDirective)

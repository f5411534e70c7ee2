"""O lado de build dos widgets: a diretiva (widgets, partida.js), os arquivos que o navegador
recebe (navegador, STDLIB_WIDGETS.txt) e o runtime copiado no fim do build (pos_build).
Importa de execucao.
"""

# a classe do contêiner de todo widget (o HTML sai de livro.widgets.api.widget_html); a trava,
# a diretiva e o PDF acham os widgets por ela
CLASSE_WIDGET = "livro-widget"

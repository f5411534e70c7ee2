"""O lado de build dos widgets: a diretiva (widgets, partida.js), os arquivos que o navegador
recebe (navegador, STDLIB_WIDGETS.txt) e o runtime copiado no fim do build (pos_build).
Importa de execucao.
"""

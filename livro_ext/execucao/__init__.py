"""A execução das páginas e os leitores de fonte: os kernels que nascem de um fork (zigoto), a chave
do cache de execução (chave_cache), os resultados guardados pelo hash (guardado), o leitor de
imports (importacoes) e o de MyST (myst). A base da casa: não importa de outra família.
"""

"""A execução das páginas: os kernels que nascem de um fork (zigoto), a chave do cache de execução
(chave_cache), os resultados guardados pelo hash (guardado) e o leitor de imports (importacoes).
Importa de tema só o leitor de MyST.
"""

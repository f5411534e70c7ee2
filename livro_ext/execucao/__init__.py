"""A execução das páginas (zigoto, chave_cache), os resultados guardados pelo hash (guardado) e os leitores
de imports (importacoes) e de MyST (myst); não importa de outra família."""

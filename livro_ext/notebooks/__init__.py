"""Os notebooks baixáveis: cada página vira um .ipynb com as saídas do build (notebooks) e o
MyST vira Markdown do Jupyter (notebooks_md). Importa de execucao, tema e widgets (navegador).
"""

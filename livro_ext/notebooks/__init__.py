"""Os notebooks baixáveis: o .ipynb de cada página (notebooks) e o MyST em Markdown do Jupyter (notebooks_md)."""

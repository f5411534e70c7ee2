"""O livro em PDF: a página única do Sphinx impressa pelo Chromium (pdf, pdf_imprime.mjs); o que
se confere no PDF impresso está nos testes (tests/pdf_confere.py). Importa de widgets e de livro_ext.livro.
"""

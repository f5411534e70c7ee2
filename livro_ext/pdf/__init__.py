"""O livro em PDF: a página única do Sphinx impressa pelo Chromium (pdf, pdf_imprime.mjs) e o que
se confere no PDF impresso (pdf_confere). Importa de widgets (pos_build) e de livro_ext.livro.
"""

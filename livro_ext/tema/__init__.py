"""O que o leitor vê do tema: opções e textos do tema (tema), ícones, busca, fórmulas desenhadas
no build (matematica, matematica.mjs), referências em português, figuras e o leitor de MyST (myst).
Importa só de execucao (guardado).
"""

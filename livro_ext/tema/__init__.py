"""O que o leitor vê do tema: opções e textos do tema (tema), ícones, busca, fórmulas desenhadas
no build (matematica, matematica.mjs), referências em português e figuras.
Importa só de execucao (guardado).
"""

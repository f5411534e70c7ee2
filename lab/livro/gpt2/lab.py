"""O laboratório do GPT-2 num nome só: `from livro.gpt2 import lab as gl`.

O notebook `laboratorio_gpt2.ipynb` e os testes importam este arquivo; assim as células do
notebook ficam curtas e cada número que ele mostra é o mesmo que os testes conferem. As
contas moram num arquivo por parte do caminho (a lista está em livro/gpt2/base.py):

    seção 1  gl.tokens_em_dois_idiomas(tok)          livro/gpt2/caminho.py
    seção 2  gl.onde_moram_os_parametros(modelo)
    seção 3  gl.caminho_completo(modelo, tok)
    seção 4  gl.bloco_a_mao_e_a_biblioteca(modelo, tok)
    seção 5  gl.o_que_as_cabecas_fazem(modelo, tok)   livro/gpt2/cabecas.py
    seção 6  gl.tire_a_atencao(modelo, tok)
    seção 7  gl.fluxo_em_cada_profundidade(modelo, tok)
    seção 8  gl.temperatura_e_cache(modelo, tok)       livro/gpt2/decodificacao.py
    seção 9  gl.decodifica(modelo, tok, prompt, ...)
    checkpoints: gl.Curso, gl.medidas                  livro/gpt2/curso.py
"""
from livro.gpt2.base import *  # noqa: F401,F403
from livro.gpt2.base import NOME, carrega, ids_de, mais_provaveis, pesos_reais  # noqa: F401
from livro.gpt2.cabecas import *  # noqa: F401,F403
from livro.gpt2.caminho import *  # noqa: F401,F403
from livro.gpt2.contas import (FRASES, FRASES_THE, PROMPT, PROMPTS_CONFIANCA, TEXTO_LONGO,  # noqa: F401
                         parametros_formula, resumo_bloco)
from livro.gpt2.curso import *  # noqa: F401,F403
from livro.gpt2.decodificacao import *  # noqa: F401,F403

# Os arquivos que o notebook baixa no Colab (os módulos do laboratório e o que eles leem).
# (Caminhos a partir de lab/; o teste do notebook confere que é o fecho de imports deste módulo;
# a única lista: o gerador do notebook, livro/gpt2/notebook.py, a copia para a célula de preparo.)
ARQUIVOS = ("livro/__init__.py", "livro/arquitetura.py", "livro/dados.py", "livro/formato.py",
            "livro/valores_curso.json", "livro/gpt2/__init__.py", "livro/gpt2/base.py",
            "livro/gpt2/cabecas.py", "livro/gpt2/caminho.py", "livro/gpt2/contas.py",
            "livro/gpt2/curso.py", "livro/gpt2/decodificacao.py", "livro/gpt2/lab.py")

# As funções de cada seção, pelo número (as chaves do valores_curso.json são s1. a s8.).
SECOES = {
    1: lambda modelo, tok: tokens_em_dois_idiomas(tok),           # noqa: F405
    2: lambda modelo, tok: onde_moram_os_parametros(modelo),      # noqa: F405
    3: caminho_completo,                                          # noqa: F405
    4: bloco_a_mao_e_a_biblioteca,                                # noqa: F405
    5: o_que_as_cabecas_fazem,                                    # noqa: F405
    6: tire_a_atencao,                                            # noqa: F405
    7: fluxo_em_cada_profundidade,                                # noqa: F405
    8: temperatura_e_cache,                                       # noqa: F405
}

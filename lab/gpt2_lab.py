"""O laboratório do GPT-2 num nome só: `import gpt2_lab as gl`.

O notebook `laboratorio_gpt2.ipynb` e os testes importam este arquivo; assim as células do
notebook ficam curtas e cada número que ele mostra é o mesmo que os testes conferem. As
contas moram num arquivo por parte do caminho (a lista está em gpt2_base.py):

    seção 1  gl.tokens_em_dois_idiomas(tok)          gpt2_caminho.py
    seção 2  gl.onde_moram_os_parametros(modelo)
    seção 3  gl.caminho_completo(modelo, tok)
    seção 4  gl.bloco_a_mao_e_a_biblioteca(modelo, tok)
    seção 5  gl.o_que_as_cabecas_fazem(modelo, tok)   gpt2_cabecas.py
    seção 6  gl.tire_a_atencao(modelo, tok)
    seção 7  gl.fluxo_em_cada_profundidade(modelo, tok)
    seção 8  gl.temperatura_e_cache(modelo, tok)       gpt2_decodificacao.py
    seção 9  gl.decodifica(modelo, tok, prompt, ...)
    checkpoints: gl.Curso, gl.medidas                  gpt2_curso.py
"""
from gpt2_base import *  # noqa: F401,F403
from gpt2_base import AQUI, NOME, carrega, ids_de, mais_provaveis, pesos_reais  # noqa: F401
from gpt2_cabecas import *  # noqa: F401,F403
from gpt2_caminho import *  # noqa: F401,F403
from gpt2_contas import (FRASES, FRASES_THE, PROMPT, PROMPTS_CONFIANCA, TEXTO_LONGO,  # noqa: F401
                         parametros_formula, resumo_bloco)
from gpt2_curso import *  # noqa: F401,F403
from gpt2_decodificacao import *  # noqa: F401,F403

# Os arquivos que o notebook baixa no Colab (os módulos do laboratório e o que eles leem).
ARQUIVOS = ("gpt2_lab.py", "gpt2_base.py", "gpt2_caminho.py", "gpt2_cabecas.py",
            "gpt2_decodificacao.py", "gpt2_curso.py", "gpt2_contas.py", "arquitetura.py",
            "formato.py", "valores_curso.json")

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

"""O laboratório do GPT-2: carregar o modelo e as peças que todas as seções usam.

O laboratório mora no subpacote lab/livro/gpt2/, um módulo por parte do caminho, e `livro/gpt2/lab.py` junta
tudo num nome só (`from livro.gpt2 import lab as gl`), o que o notebook e os testes usam:

- livro/gpt2/base.py: carregar o GPT-2, texto -> ids, os mais prováveis;
- livro/gpt2/caminho.py: seções 1 a 4 (tokens, parâmetros, o caminho em formas, o bloco à mão);
- livro/gpt2/cabecas.py: seções 5 a 7 (cabeças, tirar a atenção, o fluxo em cada profundidade);
- livro/gpt2/decodificacao.py: seções 8 e 9 (como escolher o próximo token; o cache de KV);
- livro/gpt2/curso.py: os números medidos pelo curso e a conferência dos checkpoints.

Ao lado, sem torch: livro/gpt2/contas.py (parâmetros e o BPE, sem pesos); e as ferramentas:
livro/gpt2/cache.py (um cache do hub feito à mão, para os testes) e livro/gpt2/notebook.py
(gera o notebook do laboratório).

Os nomes seguem os do próprio GPT-2 (`wte`, `wpe`, `h`, `ln_1`, `c_attn`, `c_proj`, `ln_2`,
`c_fc`, `ln_f`), para que cada peso do modelo caia no lugar certo. Importar não imprime nada.
"""

import torch

NOME = "gpt2"  # o identificador no hub; nunca trocado: os testes montam um cache com este nome


def carrega(nome=NOME):
    """O GPT-2 e o seu tokenizador, do hub ou do cache local.

    A atenção "eager" é a que devolve os pesos de atenção (output_attentions).
    """
    from transformers import AutoTokenizer, GPT2LMHeadModel

    modelo = GPT2LMHeadModel.from_pretrained(nome, attn_implementation="eager")
    modelo.eval()
    tok = AutoTokenizer.from_pretrained(nome)
    return modelo, tok


def forma(config):
    """(blocos, d, cabeças, vocabulário) de uma configuração do GPT-2."""
    return (config.n_layer, config.n_embd, config.n_head, config.vocab_size)


def forma_gpt2_small(config):
    """A configuração tem a forma do GPT-2 small? A referência é o `GPT2Config()` padrão."""
    from transformers import GPT2Config

    return forma(config) == forma(GPT2Config())


def pesos_reais(modelo):
    """Vale comparar com os números do curso? Só com a forma do GPT-2 small.

    Pesos aleatórios na forma completa também passariam aqui; nesse caso a comparação com o
    curso falha, e é isso mesmo que deve acontecer.
    """
    return forma_gpt2_small(modelo.config)


def ids_de(tok, texto):
    """Texto -> tensor de ids, forma (1, n)."""
    return torch.tensor([tok.encode(texto)])  # (1, n)


def tensor_da_saida(saida):
    """Um bloco devolve um tensor (transformers 5) ou uma tupla que começa por ele (4)."""
    return saida[0] if isinstance(saida, tuple) else saida


def mais_provaveis(tok, probs, k=4):
    """Os k tokens mais prováveis de um vetor de probabilidades (V,)."""
    p, i = torch.topk(probs, k)
    return [(tok.decode([int(j)]), float(q)) for q, j in zip(p, i)]

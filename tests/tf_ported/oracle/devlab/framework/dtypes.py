from tensorflow.python.framework.dtypes import *  # noqa

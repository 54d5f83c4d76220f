#if GUI
import CSDL2
#endif

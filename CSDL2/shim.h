// The one C header SnapUI sees: SDL2 and its image, mixer and ttf companions.
#include <SDL2/SDL.h>
#include <SDL2/SDL_image.h>
#include <SDL2/SDL_mixer.h>
#include <SDL2/SDL_ttf.h>
